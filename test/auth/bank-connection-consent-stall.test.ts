import { describe, expect, it } from 'vitest';
import { MeDocument } from '../__generated__/graphql.js';
import { approveConsent, execute, signIn, startConnection, type TestGateway } from '../support/gateway.js';
import { platformStatus } from '../support/platform-tokens.js';
import { connectBank } from '../support/sign-in-steps.js';
import { gatewayOnStallableRedis } from '../support/stallable-redis.js';

const bearer = (token: string) => `Bearer ${token}`;

/** The first revocation the sandbox is asked for among `tokens` (its token), or undefined after `withinMs`. */
function firstRevocationOf(gateway: TestGateway, tokens: string[], withinMs: number): Promise<string | undefined> {
  const asked = gateway.sandbox.nextRequest(
    (request) =>
      request.method === 'DELETE' &&
      request.path === '/v1/token' &&
      tokens.some((token) => request.headers.authorization === bearer(token)),
  );
  return Promise.race([
    asked.then((request) => tokens.find((token) => request.headers.authorization === bearer(token))),
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), withinMs).unref()),
  ]);
}

describe('a new consent whose connection write times out', () => {
  it('leaves no live platform token the gateway does not hold: the one it may not have stored and the one it may have replaced are released, and a retried consent releases the rest', async () => {
    const { redis, gateway } = await gatewayOnStallableRedis();
    const browser = await signIn(gateway);
    const [first] = gateway.sandbox.issuedTokens();

    // Redis freezes the moment the platform hands the gateway the new consent's token: the
    // connection write that follows times out, and lands once Redis thaws (or never was sent).
    const connect = await startConnection(browser, gateway.url);
    let armed = true;
    const stop = gateway.sandbox.onRequest((request) => {
      if (armed && request.method === 'GET' && request.path === '/v1/me') {
        armed = false;
        redis.pause();
      }
    });
    const callback = await browser.request((await approveConsent(browser, connect.location!)).href);
    stop();
    redis.resume();
    expect(callback.status).toBe(503);
    const second = gateway.sandbox.issuedTokens().find((token) => token !== first)!;
    expect(second).toBeDefined();

    // Whichever of the two the store ended up holding stays; the other is revoked.
    const revoked = await firstRevocationOf(gateway, [first!, second], 8_000);
    expect(revoked).toBeDefined();
    const kept = revoked === first ? second : first!;
    expect(await platformStatus(gateway, kept)).toBe(200);
    expect((await execute(gateway, browser, MeDocument)).status).toBe(200);

    // The user, told to try again, consents once more: a third token, and the rest are released.
    const landed = await connectBank(browser, gateway.url);
    expect(landed.status).toBe(303);
    const issued = gateway.sandbox.issuedTokens();
    expect(issued).toHaveLength(3);
    const third = issued.find((token) => token !== first && token !== second)!;
    expect((await execute(gateway, browser, MeDocument)).status).toBe(200);
    // Every token the platform issued is either the one the gateway holds for the user, or revoked.
    expect(await platformStatus(gateway, third)).toBe(200);
    expect(await platformStatus(gateway, first!)).toBe(403);
    expect(await platformStatus(gateway, second)).toBe(403);
  }, 30_000);
});
