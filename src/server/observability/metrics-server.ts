import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { sendError } from '@open-finance-gateway/common/http/respond';

/**
 * `GET /metrics` on a port of its own (METRICS_PORT), for a scraper on the private network: no
 * token, and nothing else served. On the main port the same text needs ADMIN_TOKEN. It binds to
 * METRICS_HOST (loopback by default), never to HOST: tokenless text must be opened on purpose.
 */
export async function startMetricsServer(
  host: string,
  port: number,
  metrics: () => Promise<{ contentType: string; body: string }>,
): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || new URL(req.url ?? '/', 'http://metrics.invalid').pathname !== '/metrics') {
      sendError(res, 404, 'NOT_FOUND', 'Not found.');
      return;
    }
    metrics().then(
      ({ contentType, body }) =>
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(body),
      () => res.writeHead(500).end(),
    );
  });
  server.listen(port, host);
  await once(server, 'listening');
  return server;
}
