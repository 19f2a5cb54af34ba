import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startGateway } from '../support/gateway.js';
import { track } from '../support/leftovers.js';
import { openRaw } from '../support/raw-socket.js';
import { wsUrl } from '../support/sockets.js';

describe('WebSocket heartbeat', () => {
  it('cuts a peer that stops answering pings after one missed ping, and keeps one that answers', async () => {
    const gateway = await startGateway({}, { heartbeatIntervalMs: 100 });
    const host = new URL(gateway.url).host;

    // A peer that completed the upgrade and then went silent (never answers a ping).
    const silent = await openRaw(gateway.url);
    silent.socket.write(
      [
        'GET /graphql HTTP/1.1',
        `Host: ${host}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        'Sec-WebSocket-Version: 13',
        'Sec-WebSocket-Protocol: graphql-transport-ws',
        `Origin: ${gateway.url}`,
        '',
        '',
      ].join('\r\n'),
    );

    // A peer that answers (ws answers pings by itself) sees several pings and stays open.
    const alive = new WebSocket(wsUrl(gateway), 'graphql-transport-ws', { headers: { origin: gateway.url } });
    track(() => alive.terminate());
    await once(alive, 'open');
    let pings = 0;
    await new Promise<void>((resolve) => alive.on('ping', () => ++pings === 4 && resolve()));

    const cutAfterMs = await silent.closed;
    expect(silent.received()).toMatch(/^HTTP\/1\.1 101/);
    // Pinged at ~100 ms, cut at ~200 ms: long before graphql-ws's own 3 s wait for connection_init.
    expect(cutAfterMs).toBeLessThan(1_500);
    expect(alive.readyState).toBe(WebSocket.OPEN);
  });
});
