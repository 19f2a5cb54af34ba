import { describe, expect, it } from 'vitest';
import { EnrichDocument, RefreshDocument } from '../__generated__/graphql.js';
import { execute, signIn, startGateway, type TestGateway } from '../support/gateway.js';
import { connectBank, signInOnly } from '../support/sign-in-steps.js';

/** Every credential in play, as the audit phase also checks across the whole suite. */
function credentials(gateway: TestGateway): string[] {
  const { appToken, appSecret, enrichmentKey } = gateway.sandbox.credentials;
  return [appToken, appSecret, enrichmentKey, ...gateway.sandbox.issuedTokens()];
}

function leaksIn(gateway: TestGateway, text: string): string[] {
  return credentials(gateway).filter((secret) => text.includes(secret));
}

describe('upstream error text that quotes credentials', () => {
  it('reaches neither the client nor the logs from a core 403 message', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    // A refresh refused with 403 while the token is live: the platform's message is meant for the user.
    gateway.sandbox.setCoreFault({ status: 403, pathPrefix: '/v1/refresh', echoCredentials: true });
    const refused = await execute(gateway, browser, RefreshDocument, {});
    const message = refused.errors?.[0]?.message ?? '';
    expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(message).toContain('[redacted]');
    expect(message).not.toMatch(/Bearer \w/);
    expect(message.length).toBeLessThanOrEqual(301);
    expect(leaksIn(gateway, JSON.stringify(refused))).toEqual([]);
    expect(leaksIn(gateway, JSON.stringify(gateway.logs))).toEqual([]);
  });

  it('reaches no log from an enrichment failure or a refused token exchange', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    gateway.sandbox.setEnrichmentFault({ status: 503, echoCredentials: true });
    const failed = await execute(gateway, browser, EnrichDocument, {
      queries: [{ id: 't1', description: 'Z ENERGY KILLARNEY ST HAMILTON' }],
    });
    expect(failed.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');

    gateway.sandbox.setCoreFault({ status: 400, pathPrefix: '/v1/token', echoCredentials: true });
    const { browser: fresh } = await signInOnly(gateway, 1);
    const page = await connectBank(fresh, gateway.url);
    expect(page.status).toBe(400);
    expect(leaksIn(gateway, page.text)).toEqual([]);

    // The failures were logged, scrubbed.
    expect(gateway.logs.some((line) => String(line.platformMessage ?? '').includes('[redacted]'))).toBe(true);
    expect(leaksIn(gateway, JSON.stringify(gateway.logs))).toEqual([]);
  });
});
