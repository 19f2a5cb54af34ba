import { once } from 'node:events';
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { AccountsDocument } from '../../__generated__/graphql.js';
import { execute, startGateway } from '../../support/gateway.js';
import { track } from '../../support/leftovers.js';
import { socketClient, subscribe } from '../../support/sockets.js';
import { deliver, signedHeaders, signedInUser } from '../../support/webhooks.js';

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  links?: Array<{ traceId: string; spanId: string }>;
}

/** An OTLP/HTTP JSON collector of our own: resolves waiters as matching spans arrive. */
async function collector() {
  const spans: ExportedSpan[] = [];
  const waiters: Array<{ match: (span: ExportedSpan) => boolean; resolve: (span: ExportedSpan) => void }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: ExportedSpan[] }> }>;
      };
      for (const span of body.resourceSpans.flatMap((resource) =>
        resource.scopeSpans.flatMap((scope) => scope.spans),
      )) {
        spans.push(span);
        for (const waiter of waiters.filter((candidate) => candidate.match(span))) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(span);
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  track(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    span(match: (span: ExportedSpan) => boolean): Promise<ExportedSpan> {
      const seen = spans.find(match);
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

describe('OpenTelemetry traces', () => {
  it('names the server span after the operation, nests upstream client spans in it and sends traceparent upstream', async () => {
    const otlp = await collector();
    const gateway = await startGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url });
    const { browser } = await signedInUser(gateway);
    expect((await execute(gateway, browser, AccountsDocument)).errors).toBeUndefined();
    const server = await otlp.span((span) => span.name === 'graphql query Accounts');
    const client = await otlp.span((span) => span.name === 'core GET /v1/accounts' && span.traceId === server.traceId);
    expect(client.parentSpanId).toBe(server.spanId);
    const upstream = gateway.sandbox.requests({ method: 'GET', path: '/v1/accounts' }).at(-1)!;
    expect(String(upstream.headers.traceparent)).toMatch(new RegExp(`^00-${server.traceId}-${client.spanId}-0[01]$`));
  });

  it('links each subscription event to the webhook that produced it', async () => {
    const otlp = await collector();
    const gateway = await startGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url });
    const { browser, state } = await signedInUser(gateway);
    const events = await subscribe<{ incomeEvents: { incomeId: string } }>(
      gateway,
      socketClient(gateway, browser).client,
      'subscription { incomeEvents { incomeId } }',
      'INCOME',
    );
    const body = JSON.stringify({ webhook_type: 'INCOME', webhook_code: 'UPDATE', state, item_id: 'income_traced' });
    expect((await deliver(gateway, body, signedHeaders(gateway, body))).status).toBe(200);
    expect((await events.next()).data?.incomeEvents.incomeId).toBe('income_traced');
    const receipt = await otlp.span((span) => span.name === 'HTTP POST /webhooks');
    const delivery = await otlp.span((span) => span.name === 'graphql subscription event');
    expect(delivery.links?.map((link) => link.traceId)).toEqual([receipt.traceId]);
  });
});
