import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { UpstreamError } from '../../src/upstream/upstream-error.js';
import { createUpstreamHttp, type UpstreamHttp } from '../../src/upstream/upstream-http.js';

/**
 * An upstream call has one deadline for the whole exchange: undici's header and body timeouts are
 * per wait, so a body that trickles in just faster than those would hold a user's request for as
 * long as the upstream likes. The deadline is a timer cleared when the call is done (that it no
 * longer fires after the call is not visible from outside: a CPU profile showed it, see docs/performance.md).
 */

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A server that answers at once, then sends its JSON body a few bytes every `everyMs`. */
async function tricklingServer(everyMs: number, chunks: number): Promise<string> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"items":[');
    let sent = 0;
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      sent += 1;
      if (sent < chunks) res.write('1,');
      else {
        clearInterval(timer);
        res.end('1]}');
      }
    }, everyMs);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

function upstream(baseUrl: string, timeoutMs: number): UpstreamHttp {
  const http = createUpstreamHttp({
    name: 'core',
    baseUrl,
    timeoutMs,
    maxTcpConnections: 2,
    maxResponseBytes: 1_000_000,
    breaker: { failures: 100, halfOpenAfterMs: 1_000 },
    logger: createLogger({ level: 'silent' }),
  });
  cleanups.push(() => http.close());
  return http;
}

describe('upstream call deadline', () => {
  it('fails a body that keeps trickling past the deadline as a timeout, on time', async () => {
    // Every wait (100 ms) is well inside undici's per-wait timeouts (600 ms); the whole is not.
    const http = upstream(await tricklingServer(100, 40), 600);
    const started = performance.now();
    const failure = await http.send({ method: 'POST', path: '/slow' }).catch((error: unknown) => error);
    const took = performance.now() - started;
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ kind: 'timeout', upstream: 'core' });
    expect(took).toBeGreaterThanOrEqual(550);
    expect(took).toBeLessThan(1_500);
  });

  it('answers a call that finishes inside the deadline, and the next one on the same connection', async () => {
    // Five chunks 20 ms apart: done in about 100 ms of a 300 ms deadline.
    const http = upstream(await tricklingServer(20, 5), 300);
    const response = await http.send({ method: 'GET', path: '/quick' });
    expect(response).toMatchObject({ status: 200, body: { items: [1, 1, 1, 1, 1] } });
    expect((await http.send({ method: 'GET', path: '/quick' })).status).toBe(200);
  });
});
