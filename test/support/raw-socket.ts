import { connect, type Socket } from 'node:net';
import { track } from './leftovers.js';

export interface RawConnection {
  socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves when the server closes (or resets) the connection, with the ms since connecting. */
  closed: Promise<number>;
  /** Writes `text` one byte every `intervalMs` until the connection closes. */
  drip(text: string, intervalMs: number): void;
}

/** A TCP connection to the gateway that the test drives byte by byte, closed after the test. */
export async function openRaw(url: string): Promise<RawConnection> {
  const target = new URL(url);
  const socket = connect({ host: target.hostname, port: Number(target.port) });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const opened = performance.now();
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  socket.on('error', () => undefined); // a reset is a close for these tests
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - opened)));
  let dripping: NodeJS.Timeout | undefined;
  track(() => {
    clearInterval(dripping);
    socket.destroy();
  });
  return {
    socket,
    received: () => text,
    closed,
    drip(payload, intervalMs) {
      let index = 0;
      dripping = setInterval(() => {
        if (socket.destroyed || index >= payload.length) return clearInterval(dripping);
        socket.write(payload[index]!);
        index += 1;
      }, intervalMs);
      void closed.then(() => clearInterval(dripping));
    },
  };
}
