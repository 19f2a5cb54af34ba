import type { WebSocket, WebSocketServer } from 'ws';

const awaitingPong = new WeakSet<WebSocket>();

/** One function for every socket (a closure per socket would cost memory on each idle socket). */
function answered(this: WebSocket): void {
  awaitingPong.delete(this);
}

/**
 * Finds dead peers: every `intervalMs` each open socket is pinged, and one that has not answered
 * the previous ping is terminated. One timer for all sockets, instead of graphql-ws's interval and
 * pong timeout per socket.
 */
export function startHeartbeat(wss: WebSocketServer, intervalMs: number): { stop(): void } {
  wss.on('connection', (socket: WebSocket) => socket.on('pong', answered));
  const timer = setInterval(() => {
    for (const socket of wss.clients) {
      if (socket.readyState !== socket.OPEN) continue;
      if (awaitingPong.has(socket)) {
        socket.terminate();
        continue;
      }
      awaitingPong.add(socket);
      socket.ping();
    }
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
