import { describe, expect, it } from 'vitest';
import { Browser } from '../../support/browser.js';
import {
  deployment,
  paymentWebhook,
  postWebhook,
  routingState,
  sessionCookie,
  signInVia,
  type Deployment,
} from '../../support/deployment.js';
import { approveConsent } from '../../support/gateway.js';
import { sseSubscription } from '../../support/http-streams.js';
import type { Instance } from '../../support/instances.js';
import { REDIS_URL } from '../../support/redis.js';

describe('subscriptions over HTTP and phone connection URLs, several instances on one Redis', () => {
  it('streams a webhook posted to A on B, and ends the stream on B when the user signs out through A', async () => {
    const deployed: Deployment = await deployment(2);
    const [a, b] = deployed.instances as [Instance, Instance];
    const userId = await signInVia(deployed, a, b);
    const started = b.events.more('subscription-started', 1);
    const live = sseSubscription(
      b,
      { cookie: sessionCookie(deployed) },
      'subscription { paymentUpdated { paymentId } }',
    );
    await started;

    const state = routingState(deployed.sandbox, userId);
    expect((await postWebhook(deployed.sandbox, a, paymentWebhook(state, 'payment_1'))).status).toBe(200);
    expect((await live.reader.data<{ paymentUpdated: { paymentId: string } }>()).paymentUpdated.paymentId).toBe(
      'payment_1',
    );

    const ended = b.events.waitFor('subscription-ended');
    expect((await deployed.via(a).request(`${deployed.publicUrl}/auth/logout`, { method: 'POST' })).status).toBe(204);
    const last = await live.reader.next();
    expect(last).toMatchObject({ kind: 'next', value: { errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] } });
    await ended;
  }, 60_000);

  it('redeems a connection URL issued on A on B, once', async () => {
    const deployed = await deployment(2, { REDIS_URL, APP_RETURN_URIS: 'nz.example.app:/connected' });
    const [a, b] = deployed.instances as [Instance, Instance];
    await signInVia(deployed, a, b);
    const started = await deployed.via(a).request(`${deployed.publicUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation { startBankConnection(returnUri: "nz.example.app:/connected", state: "s1") { url } }',
      }),
    });
    const { url } = (JSON.parse(started.text) as { data: { startBankConnection: { url: string } } }).data
      .startBankConnection;

    const onB = (target: URL) => new URL(`${target.pathname}${target.search}`, b.url);
    const phone = new Browser().routeThrough((target) => (target.origin === deployed.publicUrl ? onB(target) : target));
    const page = await phone.request(url);
    expect(page.status).toBe(200);
    const href = /class="button" href="([^"]+)"/.exec(page.text)![1]!.replaceAll('&amp;', '&');
    const back = await approveConsent(phone, href);
    const callback = await phone.request(back.href);
    expect(callback.location).toBe('nz.example.app:/connected?outcome=connected&state=s1');

    const replayed = await new Browser()
      .routeThrough((target) => new URL(`${target.pathname}${target.search}`, a.url))
      .request(url);
    expect(replayed.status).toBe(400);
    expect(replayed.text).toContain('CONNECTION_URL_INVALID');
  }, 60_000);
});
