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
});
