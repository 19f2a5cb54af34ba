import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { AccountDocument, AccountsDocument, MeDocument } from '../__generated__/graphql.js';
import { execute, signIn, startGateway, type TestGateway } from '../support/gateway.js';

function accountListCalls(gateway: TestGateway) {
  return gateway.sandbox.requests({ service: 'core', method: 'GET', path: '/v1/accounts' }).length;
}

describe('one user or one slow endpoint cannot take the gateway down', () => {
  it("keeps another user's calls flowing while one user's reads hang", async () => {
    const gateway = await startGateway({
      UPSTREAM_MAX_TCP_CONNECTIONS: '8',
      UPSTREAM_MAX_IN_FLIGHT_PER_USER: '4',
      CORE_TIMEOUT_MS: '5000',
    });
    const greedy = await signIn(gateway, 0);
    const other = await signIn(gateway, 1);
    gateway.sandbox.setCoreFault({ delayMs: 4_000, pathPrefix: '/v1/accounts' });
    const hung = Array.from({ length: 40 }, () => execute(gateway, greedy, AccountsDocument));
    // Wait until the greedy user's share (4) has reached the platform and hangs there.
    let reached = 0;
    await gateway.sandbox.nextRequest((request) => request.path === '/v1/accounts' && ++reached >= 4);
    const started = performance.now();
    const me = await execute(gateway, other, MeDocument);
    const waited = performance.now() - started;
    expect(me.status).toBe(200);
    expect(me.errors).toBeUndefined();
    expect(waited).toBeLessThan(1_000);
    // Only the greedy user's share ever reached the platform at once.
    expect(gateway.sandbox.requests({ path: '/v1/accounts' }).length).toBeLessThanOrEqual(4);
    gateway.sandbox.setCoreFault({});
    const outcomes = await Promise.all(hung);
    expect(outcomes.flatMap((outcome) => outcome.errors ?? []).map((error) => error.extensions?.code)).not.toContain(
      'INTERNAL_SERVER_ERROR',
    );
  }, 30_000);

  it('opens a circuit on upstream faults only, fails fast while open, and probes with one call', async () => {
    const gateway = await startGateway({ CIRCUIT_BREAKER_FAILURES: '3', CIRCUIT_BREAKER_HALF_OPEN_AFTER_MS: '300' });
    const browser = await signIn(gateway);

    // 404s are one user's answer, not a fault: the circuit stays closed however many there are.
    for (let index = 0; index < 5; index += 1)
      expect(
        (await execute(gateway, browser, AccountDocument, { id: `acc_missing${index}` })).data?.account,
      ).toBeNull();
    expect(gateway.sandbox.requests({ path: '/v1/accounts/acc_missing4' })).toHaveLength(1);

    gateway.sandbox.setCoreFault({ status: 503, pathPrefix: '/v1/accounts' });
    const failing = await execute(gateway, browser, AccountsDocument); // three attempts: 503, 503, 503
    expect(failing.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    const calls = accountListCalls(gateway);
    expect(calls).toBe(3);

    const fast = await execute(gateway, browser, AccountsDocument);
    expect(fast.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(accountListCalls(gateway)).toBe(calls); // failed fast: no upstream call
    expect((await execute(gateway, browser, MeDocument)).status).toBe(200); // another group is unaffected

    // Half-open: one probe goes upstream; the requests that arrive meanwhile wait for its outcome.
    // A failed probe opens the circuit again, and they all fail fast.
    gateway.sandbox.setCoreFault({ status: 503, delayMs: 200, pathPrefix: '/v1/accounts' });
    await delay(350); // the half-open delay is a time by definition
    const probes = await Promise.all(Array.from({ length: 5 }, () => execute(gateway, browser, AccountsDocument)));
    expect(accountListCalls(gateway)).toBe(calls + 1);
    expect(probes.map((probe) => probe.errors?.[0]?.extensions?.code)).toEqual(Array(5).fill('UPSTREAM_UNAVAILABLE'));

    // A successful probe closes it.
    gateway.sandbox.setCoreFault({});
    await delay(350);
    expect((await execute(gateway, browser, AccountsDocument)).errors).toBeUndefined();
    expect(accountListCalls(gateway)).toBe(calls + 2);
    expect((await execute(gateway, browser, AccountsDocument)).errors).toBeUndefined();
  });
});
