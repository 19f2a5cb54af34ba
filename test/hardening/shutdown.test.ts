import { describe, expect, it } from 'vitest';
import { AccountsDocument } from '../__generated__/graphql.js';
import { execute, startGateway } from '../support/gateway.js';
import { startInstance } from '../support/instances.js';
import { socketClient, subscribe } from '../support/sockets.js';
import { deliver, signedHeaders, signedInUser } from '../support/webhooks.js';

describe('shutdown that loses nothing', () => {
  it('fails readiness first, refuses new webhooks with 503, lets in-flight requests finish and closes sockets with 1001', async () => {
    const gateway = await startGateway({ SHUTDOWN_DELAY_MS: '400', SHUTDOWN_GRACE_MS: '3000' });
    const { browser, state } = await signedInUser(gateway);
    expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
    const { client, closed } = socketClient(gateway, browser);
    await subscribe(gateway, client, 'subscription { incomeEvents { code } }', 'INCOME');

    gateway.sandbox.setCoreFault({ delayMs: 800, pathPrefix: '/v1/accounts' });
    const inFlight = execute(gateway, browser, AccountsDocument);
    await gateway.sandbox.nextRequest((request) => request.path === '/v1/accounts');
    const stopping = gateway.app.stop();

    const readiness = await fetch(`${gateway.url}/readyz`);
    expect(readiness.status).toBe(503);
    expect(await readiness.json()).toEqual({ status: 'draining' });
    const body = JSON.stringify({ webhook_type: 'INCOME', webhook_code: 'UPDATE', state, item_id: 'income_late' });
    const late = await deliver(gateway, body, signedHeaders(gateway, body));
    expect(late.status).toBe(503);

    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(answered.errors).toBeUndefined();
    expect((await closed).code).toBe(1001);
    await stopping;
  });

  it('drains on SIGTERM in a real process and exits 0, with Apollo leaving the signal to the gateway', async () => {
    // Started with an IPC channel: it resolves on the gateway's own 'listening' event.
    const instance = await startInstance('drained', {
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SHUTDOWN_DELAY_MS: '1500',
      SHUTDOWN_GRACE_MS: '1000',
    });
    const port = instance.port;
    const child = instance.process;
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);

    child.kill('SIGTERM');
    // During the 1.5 s drain delay the process still serves, and readiness fails: ask until the
    // signal has been handled (a line already in the pipe must not be mistaken for it).
    let during = 200;
    for (let attempt = 0; attempt < 100 && during === 200; attempt += 1)
      during = (await fetch(`http://127.0.0.1:${port}/readyz`)).status;
    expect(during).toBe(503);
    expect(await instance.exited, JSON.stringify(instance.logs)).toBe(0);
  }, 30_000);

  it('stops on SIGINT from a terminal as soon as nothing is in flight, without the load-balancer delay', async () => {
    // A delay far longer than the bound: an exit within it proves the delay was skipped.
    const instance = await startInstance('interrupted', { HOST: '127.0.0.1', SHUTDOWN_DELAY_MS: '5000' });
    expect((await fetch(`${instance.url}/readyz`)).status).toBe(200);
    const started = performance.now();
    instance.process.kill('SIGINT');
    expect(await instance.exited, JSON.stringify(instance.logs)).toBe(0);
    expect(performance.now() - started).toBeLessThan(1_000);
  }, 30_000);

  it('still waits SHUTDOWN_DELAY_MS on SIGTERM, for the load balancer to notice', async () => {
    const instance = await startInstance('terminated', { HOST: '127.0.0.1', SHUTDOWN_DELAY_MS: '700' });
    const started = performance.now();
    instance.process.kill('SIGTERM');
    expect(await instance.exited, JSON.stringify(instance.logs)).toBe(0);
    expect(performance.now() - started).toBeGreaterThanOrEqual(700);
  }, 30_000);

  it('lets an in-flight request finish when stopping without the delay', async () => {
    const gateway = await startGateway({ SHUTDOWN_DELAY_MS: '5000', SHUTDOWN_GRACE_MS: '3000' });
    const { browser } = await signedInUser(gateway);
    gateway.sandbox.setCoreFault({ delayMs: 500, pathPrefix: '/v1/accounts' });
    const inFlight = execute(gateway, browser, AccountsDocument);
    await gateway.sandbox.nextRequest((request) => request.path === '/v1/accounts');
    const started = performance.now();
    const stopping = gateway.app.stop({ delay: false });
    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(answered.errors).toBeUndefined();
    await stopping;
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
