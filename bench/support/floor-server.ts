import { createPublicKey, verify } from 'node:crypto';
import { createServer } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';

/**
 * The floor for `bench:realtime`: the least a webhook-to-socket server can do. It verifies the
 * signature (RSA-SHA256, as the gateway does), parses the body, and sends one prepared frame to
 * every open socket. No sessions, no GraphQL, no upstream reads.
 */
const key = createPublicKey(process.env.FLOOR_PUBLIC_KEY!);
const sockets = new Set<WebSocket>();
const wss = new WebSocketServer({ noServer: true });

const server = createServer((req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const signature = String(req.headers['x-service-signature'] ?? '');
    if (!verify('sha256', body, key, Buffer.from(signature, 'base64'))) {
      res.writeHead(401).end();
      return;
    }
    const event = JSON.parse(body.toString()) as { webhook_code: string; item_id: string; updated_fields?: string[] };
    const frame = JSON.stringify({
      id: '1',
      type: 'next',
      payload: {
        data: {
          accountEvents: {
            code: event.webhook_code,
            accountId: event.item_id,
            updatedFields: event.updated_fields ?? [],
          },
        },
      },
    });
    for (const socket of sockets) socket.send(frame);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"published"}');
  });
});
server.on('upgrade', (req, socket, head) =>
  wss.handleUpgrade(req, socket, head, (ws) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
  }),
);
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('floor listening'));
process.on('SIGTERM', () => {
  for (const socket of sockets) socket.terminate();
  server.close(() => process.exit(0));
});
