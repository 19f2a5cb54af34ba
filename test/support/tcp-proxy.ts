import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP proxy on loopback in front of one server (Redis here), to inject network faults a real
 * deployment sees: added latency on every chunk each way, and connections cut mid-stream. Chunks
 * keep their order: each direction is a queue drained after the latency.
 */
export interface TcpProxy {
  port: number;
  /** Latency added to every chunk, each direction. */
  setLatency(ms: number): void;
  /** Destroys every open connection (clients reconnect through the proxy). */
  cutAll(): number;
  close(): Promise<void>;
}

function relay(from: Socket, to: Socket, latency: () => number): void {
  const queue: Array<{ at: number; chunk: Buffer }> = [];
  let draining = false;
  const drain = () => {
    const next = queue[0];
    if (!next) return void (draining = false);
    const wait = next.at - performance.now();
    if (wait > 0) return void setTimeout(drain, wait);
    queue.shift();
    if (!to.destroyed) to.write(next.chunk);
    drain();
  };
  from.on('data', (chunk: Buffer) => {
    const ms = latency();
    if (ms <= 0 && queue.length === 0) return void to.write(chunk);
    queue.push({ at: performance.now() + ms, chunk });
    if (!draining) {
      draining = true;
      drain();
    }
  });
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let latencyMs = 0;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    relay(client, upstream, () => latencyMs);
    relay(upstream, client, () => latencyMs);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as { port: number }).port,
    setLatency(ms) {
      latencyMs = ms;
    },
    cutAll() {
      const count = open.size;
      for (const socket of [...open]) socket.destroy();
      return count;
    },
    async close() {
      for (const socket of [...open]) socket.destroy();
      server.close();
      await once(server, 'close').catch(() => undefined);
    },
  };
}
