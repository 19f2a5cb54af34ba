import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackRedirect {
  /** Where the browser is sent back to: `http://127.0.0.1:<port><path>`. */
  uri: string;
  /** The full URL the browser came back to (its query carries the answer). */
  received: Promise<URL>;
  /** Stops listening (also done once the browser came back). */
  close(): void;
}

/**
 * A one-shot listener for a browser's return to a native app on a desktop (RFC 8252 §7.3): on the
 * loopback IP literal, not `localhost` (§8.3), on a port the system picks, for one request to
 * `path`. The page tells the user to go back to the app; any other path is a 404.
 */
export async function listenOnLoopback(path: string): Promise<LoopbackRedirect> {
  let resolve!: (url: URL) => void;
  const received = new Promise<URL>((done) => (resolve = done));
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
    if (req.method !== 'GET' || url.pathname !== path) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end('<!doctype html><title>Done</title><p>Done. You can close this window and go back to the app.</p>');
    resolve(url);
    close();
  });
  const close = () => {
    server.close();
    server.closeAllConnections();
  };
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return { uri: `http://127.0.0.1:${port}${path}`, received, close };
}
