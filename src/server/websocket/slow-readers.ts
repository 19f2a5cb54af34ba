import type { WebSocket } from 'ws';
import type { Logger } from '@open-finance-gateway/common/logger';

/**
 * Cuts a socket whose client does not read: checked once the frames of this turn of the event
 * loop are handed over, on every socket that was sent one. One check and one immediate for all
 * of them, not an immediate and a closure per frame: an event to a thousand sockets sends a
 * thousand frames.
 */
export function watchSlowReaders(options: { maxBufferedBytes: number; logger: Logger; onCut?: () => void }): {
  sent(socket: WebSocket): void;
} {
  let toCheck = new Set<WebSocket>();
  const check = () => {
    const sockets = toCheck;
    toCheck = new Set();
    for (const socket of sockets) {
      // Once cut, the frames already queued must not report (and log) the cut again.
      if (socket.readyState !== socket.OPEN || socket.bufferedAmount <= options.maxBufferedBytes) continue;
      options.logger.warn(
        { buffered: socket.bufferedAmount, limit: options.maxBufferedBytes },
        'websocket cut: its client is not reading',
      );
      socket.terminate();
      options.onCut?.();
    }
  };
  return {
    sent(socket) {
      if (toCheck.size === 0) setImmediate(check);
      toCheck.add(socket);
    },
  };
}
