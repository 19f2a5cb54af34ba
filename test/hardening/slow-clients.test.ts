import { describe, expect, it } from 'vitest';
import { signIn, startGateway } from '../support/gateway.js';
import { openRaw } from '../support/raw-socket.js';
import { sessionCookie } from '../support/session-cookie.js';

const limits = { HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '2000', WEBHOOK_BODY_TIMEOUT_MS: '1000' };

describe('slow clients and connection limits', () => {
  it('closes a connection whose headers drip in, once the header deadline passes', async () => {
    const gateway = await startGateway(limits);
    const connection = await openRaw(gateway.url);
    connection.drip(`GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ${'a'.repeat(200)}\r\n\r\n`, 100);
    const elapsed = await connection.closed;
    expect(elapsed).toBeLessThan(2_500);
    expect(connection.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it('closes a signed-in connection whose GraphQL body drips in, once the request deadline passes', async () => {
    const gateway = await startGateway(limits);
    const browser = await signIn(gateway);
    const cookie = sessionCookie(browser, gateway.url);
    const connection = await openRaw(gateway.url);
    connection.socket.write(
      `POST /graphql HTTP/1.1\r\nHost: localhost\r\nCookie: ${cookie}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n`,
    );
    connection.drip('{'.repeat(500), 100);
    const elapsed = await connection.closed;
    expect(elapsed).toBeGreaterThan(1_500);
    expect(elapsed).toBeLessThan(3_500);
  });

  it('answers 408 and closes when a webhook body is not received within its deadline', async () => {
    const gateway = await startGateway(limits);
    const connection = await openRaw(gateway.url);
    connection.socket.write(
      'POST /webhooks HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 300\r\n\r\n',
    );
    connection.drip('{'.repeat(300), 100);
    const elapsed = await connection.closed;
    expect(elapsed).toBeLessThan(2_000);
    expect(connection.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it('closes the connection after a 413', async () => {
    const gateway = await startGateway(limits);
    for (const path of ['/webhooks', '/graphql']) {
      const connection = await openRaw(gateway.url);
      connection.socket.write(
        `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n{`,
      );
      expect(await connection.closed, path).toBeLessThan(1_000);
      expect(connection.received(), path).toMatch(/^HTTP\/1\.1 (413|401)/);
      expect(connection.received(), path).toMatch(/connection: close/i);
    }
  });

  it('drops half-open requests at the header deadline, and connections beyond HTTP_MAX_TCP_CONNECTIONS at once', async () => {
    const gateway = await startGateway({ ...limits, HTTP_MAX_TCP_CONNECTIONS: '50' });
    const halfOpen = await Promise.all(Array.from({ length: 50 }, () => openRaw(gateway.url)));
    for (const connection of halfOpen) connection.socket.write('GET /healthz HTTP/1.1\r\nHost: local');
    const extra = await openRaw(gateway.url);
    expect(await extra.closed).toBeLessThan(1_000);
    expect(extra.received()).toBe('');

    const closedAfter = await Promise.all(halfOpen.map((connection) => connection.closed));
    expect(Math.max(...closedAfter)).toBeLessThan(2_500);
    // With the half-open ones gone, the gateway accepts connections again.
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
  });
});
