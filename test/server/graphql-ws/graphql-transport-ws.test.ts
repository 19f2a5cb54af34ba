import type { ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import {
  GraphQLTransportWs,
  type Connection,
  type ProtocolHooks,
  type Runnable,
  type SocketWire,
} from '../../../src/server/graphql-ws/graphql-transport-ws.js';

/** A subscription's results, released by the test one by one; `returned` counts `return()` calls. */
class HeldStream implements AsyncIterableIterator<ExecutionResult> {
  returned = 0;
  private pending: Array<(step: IteratorResult<ExecutionResult>) => void> = [];
  constructor(private readonly onReturn: () => Promise<void> = async () => undefined) {}
  next(): Promise<IteratorResult<ExecutionResult>> {
    return new Promise((resolve) => this.pending.push(resolve));
  }
  async return(): Promise<IteratorResult<ExecutionResult>> {
    this.returned += 1;
    await this.onReturn();
    return { done: true, value: undefined };
  }
  /** Answers the oldest `next()` waiting. */
  emit(step: IteratorResult<ExecutionResult>): void {
    this.pending.shift()!(step);
  }
  get waiting(): number {
    return this.pending.length;
  }
  [Symbol.asyncIterator]() {
    return this;
  }
}

/** A socket in memory: the frames the protocol wrote to it, and how it closed. */
class MemorySocket {
  frames: Array<{ id?: string; type: string; payload?: unknown }> = [];
  closing: { code: number; reason: string } | undefined;
  onClose: (() => void) | undefined;
  constructor(readonly protocol = 'graphql-transport-ws') {}
}

/** The protocol's view of a memory socket: a frame is written on the next turn, as a real socket would. */
const memoryWire: SocketWire<MemorySocket> = {
  protocol: (socket) => socket.protocol,
  isOpen: (socket) => socket.closing === undefined,
  send(socket, data, written) {
    if (socket.closing) return written();
    socket.frames.push(JSON.parse(data) as MemorySocket['frames'][number]);
    setImmediate(written);
  },
  close(socket, code, reason) {
    if (socket.closing) return;
    socket.closing = { code, reason };
    socket.onClose?.();
  },
};

type Hooks = ProtocolHooks<MemorySocket, undefined, Runnable>;

/** A protocol whose every subscription takes the next of `streams`, and a socket open on it (no `ws` anywhere). */
function opened(streams: HeldStream[], hooks: Partial<Hooks> = {}) {
  const protocol = new GraphQLTransportWs<MemorySocket, undefined, Runnable>(
    memoryWire,
    {
      connectionInitWaitTimeout: 5_000,
      onConnect: async () => true,
      onSubscribe: async () => ({ run: async () => streams.shift()! }),
      onError: (errors) => errors.map((error) => ({ message: error.message })),
      onNext: () => undefined,
      ...hooks,
    },
    createLogger({ level: 'silent' }),
  );
  const socket = new MemorySocket();
  const connection = protocol.opened(socket, undefined) as Connection<MemorySocket, undefined>;
  socket.onClose = () => protocol.closed(connection);
  const send = (message: object) => protocol.receive(connection, JSON.stringify(message));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    const onClose = socket.onClose!;
    socket.onClose = () => {
      onClose();
      resolve(socket.closing!);
    };
  });
  return { socket, send, closed };
}

/** The same, the socket acknowledged, with the frames it receives. */
async function connected(streams: HeldStream[], hooks: Partial<Hooks> = {}) {
  const { socket, send, closed } = opened(streams, hooks);
  const frames = socket.frames;
  send({ type: 'connection_init' });
  await until(() => frames.some((frame) => frame.type === 'connection_ack'));
  const subscribe = (id: string) => send({ id, type: 'subscribe', payload: { query: 'subscription { ticks }' } });
  const complete = (id: string) => send({ id, type: 'complete' });
  return { socket, frames, subscribe, complete, closed };
}

/** Waits for `condition`, checking on each turn of the event loop (frames arrive as socket events). */
async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; !condition(); turn += 1) {
    if (turn > 20_000) throw new Error('condition never held');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('the graphql-transport-ws server', () => {
  it('keeps a re-used id for the new subscription when the old stream ends afterwards', async () => {
    const first = new HeldStream();
    const second = new HeldStream();
    const { frames, subscribe, complete } = await connected([first, second]);

    subscribe('x');
    await until(() => first.waiting === 1);
    complete('x'); // the client completes while an event is on its way…
    await until(() => first.returned === 1);
    subscribe('x'); // …and subscribes the same id again
    await until(() => second.waiting === 1);
    first.emit({ done: false, value: { data: { ticks: 1 } } }); // the old stream's last event
    await until(() => first.waiting === 1);
    first.emit({ done: true, value: undefined });
    await new Promise((resolve) => setImmediate(resolve));

    // The old stream's end tells the client nothing about the new one, and frees nothing of it:
    expect(frames.filter((frame) => frame.type === 'complete')).toEqual([]);
    complete('x');
    await until(() => second.returned === 1);
  });

  it('closes the socket with 4500 when a failed stream’s error frame cannot be made', async () => {
    const failing = new HeldStream();
    failing.next = () => Promise.reject(new Error('event log lost'));
    const { subscribe, closed } = await connected([failing], {
      onError: () => {
        throw new Error('formatting failed');
      },
    });
    subscribe('x');
    const { code } = await closed;
    expect(code).toBe(4500);
  });

  it('closes with 4500 and a short reason when a hook fails with a message too long for a close frame', async () => {
    const { send, closed } = opened([], {
      onConnect: () => Promise.reject(new Error('é'.repeat(100))), // 100 characters, 200 bytes
    });
    send({ type: 'connection_init' });
    const { code, reason } = await closed;
    expect([code, reason]).toEqual([4500, 'Internal server error']);
  });

  it('logs a stream whose return() rejects instead of leaving the rejection unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const stream = new HeldStream(async () => {
        throw new Error('queue already closed');
      });
      const { frames, subscribe } = await connected([stream], {
        onNext: () => {
          throw new Error('frame could not be made');
        },
      });
      subscribe('x');
      await until(() => stream.waiting === 1);
      stream.emit({ done: false, value: { data: { ticks: 1 } } });
      await until(() => frames.some((frame) => frame.type === 'error'));
      // An unhandled rejection is reported once the microtasks of a turn have run: give it two.
      for (let turn = 0; turn < 2; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      expect(stream.returned).toBe(1);
      expect(frames.find((frame) => frame.type === 'error')).toMatchObject({
        id: 'x',
        payload: [{ message: 'frame could not be made' }],
      });
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
