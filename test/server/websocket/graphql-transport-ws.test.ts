import { once } from 'node:events';
import { buildSchema, parse, type ExecutionResult } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { createLogger } from '@open-finance-gateway/common/logger';
import { serveGraphQLTransportWs, type ProtocolHooks } from '../../../src/server/websocket/graphql-transport-ws.js';

const schema = buildSchema('type Query { ok: Int } type Subscription { ticks: Int }');
const document = parse('subscription { ticks }');

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

const servers: WebSocketServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    for (const client of server.clients) client.terminate();
    await new Promise((done) => server.close(done));
  }
});

/** A protocol server whose every subscription takes the next of `streams`, and a client socket open on it. */
async function opened(streams: HeldStream[], hooks: Partial<ProtocolHooks> = {}): Promise<WebSocket> {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  servers.push(server);
  await once(server, 'listening');
  serveGraphQLTransportWs(
    server,
    {
      connectionInitWaitTimeout: 5_000,
      onConnect: async () => true,
      onSubscribe: async () => ({ schema, document }),
      subscribe: async () => streams.shift()!,
      onError: (errors) => errors.map((error) => ({ message: error.message })),
      onNext: () => undefined,
      ...hooks,
    },
    createLogger({ level: 'silent' }),
  );
  const { port } = server.address() as { port: number };
  const socket = new WebSocket(`ws://127.0.0.1:${port}`, 'graphql-transport-ws');
  await once(socket, 'open');
  return socket;
}

/** The same, the socket acknowledged, with the frames it receives. */
async function connected(streams: HeldStream[], hooks: Partial<ProtocolHooks> = {}) {
  const socket = await opened(streams, hooks);
  const frames: Array<{ id?: string; type: string; payload?: unknown }> = [];
  socket.on('message', (data) => frames.push(JSON.parse(String(data)) as (typeof frames)[number]));
  socket.send(JSON.stringify({ type: 'connection_init' }));
  await until(() => frames.some((frame) => frame.type === 'connection_ack'));
  const subscribe = (id: string) =>
    socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query: 'subscription { ticks }' } }));
  const complete = (id: string) => socket.send(JSON.stringify({ id, type: 'complete' }));
  return { socket, frames, subscribe, complete };
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
    const { socket, subscribe } = await connected([failing], {
      onError: () => {
        throw new Error('formatting failed');
      },
    });
    const closed = once(socket, 'close');
    subscribe('x');
    const [code] = (await closed) as [number, Buffer];
    expect(code).toBe(4500);
  });

  it('closes with 4500 and a short reason when a hook fails with a message too long for a close frame', async () => {
    const socket = await opened([], {
      onConnect: () => Promise.reject(new Error('é'.repeat(100))), // 100 characters, 200 bytes
    });
    const closed = once(socket, 'close');
    socket.send(JSON.stringify({ type: 'connection_init' }));
    const [code, reason] = (await closed) as [number, Buffer];
    expect([code, String(reason)]).toEqual([4500, 'Internal server error']);
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
