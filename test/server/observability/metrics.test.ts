import { describe, expect, it } from 'vitest';
import { AccountsDocument, EnrichDocument } from '../../__generated__/graphql.js';
import { execute, signIn, startGateway } from '../../support/gateway.js';
import { sessionCookieValue } from '../../support/session-cookie.js';
import { socketClient } from '../../support/sockets.js';
import { overSocket } from '../../support/transports.js';
import { deliver, signedHeaders, signedInUser } from '../../support/webhooks.js';

const ADMIN_TOKEN = 'metrics-test-admin-token-0123456789abcdef';

describe('Prometheus metrics', () => {
  it('counts requests, operations, upstream calls, enrichment and webhooks, with no user data in any label', async () => {
    const gateway = await startGateway({ METRICS_PORT: '0', ADMIN_TOKEN });
    const { browser, userId, state } = await signedInUser(gateway);
    expect((await execute(gateway, browser, AccountsDocument)).errors).toBeUndefined();
    expect(
      (
        await execute(gateway, browser, EnrichDocument, {
          queries: [{ id: 'a', description: 'WOOLWORTHS NZ/1234 PONSONBY AUCKLAND' }],
        })
      ).errors,
    ).toBeUndefined();
    const accountId = gateway.sandbox.world().accounts.find((account) => account.sandboxUserId === userId)!._id;
    const body = JSON.stringify({
      webhook_type: 'ACCOUNT',
      webhook_code: 'UPDATE',
      state,
      item_id: accountId,
      updated_fields: ['balance'],
    });
    expect((await deliver(gateway, body, signedHeaders(gateway, body))).status).toBe(200);
    expect((await deliver(gateway, body, signedHeaders(gateway, body))).status).toBe(200); // duplicate

    const scraped = await fetch(gateway.app.metricsUrl!);
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toContain('text/plain');
    const text = await scraped.text();
    expect(text).toMatch(/gateway_http_requests_total\{method="POST",route="\/graphql",status="2xx"\} \d+/);
    expect(text).toMatch(/gateway_graphql_operations_total\{type="query",outcome="OK",transport="http"\} \d+/);
    expect(text).toMatch(/gateway_upstream_requests_total\{upstream="core",route="\/v1\/accounts",status="2xx"\} \d+/);
    expect(text).toMatch(
      /gateway_upstream_requests_total\{upstream="enrichment",route="\/v1\/search",status="2xx"\} 1/,
    );
    expect(text).toMatch(/gateway_enrichment_batch_size_count 1/);
    expect(text).toMatch(/gateway_webhooks_total\{outcome="published"\} 1/);
    expect(text).toMatch(/gateway_webhooks_total\{outcome="duplicate"\} 1/);
    expect(text).toMatch(/gateway_webhook_key_fetches_total\{result="ok"\} 1/);
    expect(text).toMatch(/gateway_websocket_open_sockets 0/);
    expect(text).toMatch(/gateway_log_lines_dropped_total 0/);
    expect(text).toMatch(/process_cpu_user_seconds_total/);
    // Ids become :id; no user, account, token or cookie value appears anywhere.
    for (const secret of [
      userId,
      accountId,
      state,
      ...gateway.sandbox.issuedTokens(),
      sessionCookieValue(browser, gateway.url)!,
    ])
      expect(text).not.toContain(secret);
  });

  it('counts queries and mutations sent over the socket, and those it refuses, by transport', async () => {
    const gateway = await startGateway({ METRICS_PORT: '0' });
    const browser = await signIn(gateway);
    const { client } = socketClient(gateway, browser);
    expect((await overSocket(client, '{ accounts { id } }')).errors).toBeUndefined();
    expect((await overSocket(client, '{ accounts { nope } }')).errors).toEqual([
      { code: 'GRAPHQL_VALIDATION_FAILED', path: null },
    ]);
    const text = await (await fetch(gateway.app.metricsUrl!)).text();
    expect(text).toMatch(/gateway_graphql_operations_total\{type="query",outcome="OK",transport="websocket"\} 1\n/);
    expect(text).toMatch(
      /gateway_graphql_operations_total\{type="unknown",outcome="GRAPHQL_VALIDATION_FAILED",transport="websocket"\} 1\n/,
    );
    expect(text).toContain('# HELP gateway_graphql_operations_total GraphQL queries and mutations');
    expect(text).not.toContain('direct');
  });

  it('answers on the main port only with the admin token', async () => {
    const gateway = await startGateway({ ADMIN_TOKEN });
    expect((await fetch(`${gateway.url}/metrics`)).status).toBe(401);
    const scraped = await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('gateway_http_requests_total');
    expect(gateway.app.metricsUrl).toBeUndefined();
  });
});
