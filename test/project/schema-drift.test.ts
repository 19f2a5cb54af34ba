import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { getNamedType, type GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildGatewaySchema, printGatewaySchema } from '../../src/graphql/schema.js';

describe('schema.graphql', () => {
  it('matches the schema the code builds (run `npm run schema:emit` and commit when this fails)', async () => {
    const committed = readFileSync(resolve(__dirname, '../../schema.graphql'), 'utf8');
    const built = printGatewaySchema(await buildGatewaySchema({ enrichment: { maxQueriesPerRequest: 1000 } }));
    expect(built).toBe(committed);
  });

  it('gives every subscription event the same cursor and receivedAt, and every webhook event the same code', async () => {
    // Declared once (LoggedEventFields, WebhookEventFields in src/graphql/subscriptions/event.type.ts):
    // a client reads these three the same way whatever the event.
    const schema = await buildGatewaySchema({ enrichment: { maxQueriesPerRequest: 1000 } });
    // Transaction sync resumes from its own cursor (`nextCursor`), not from the event log's.
    const events = Object.values(schema.getSubscriptionType()!.getFields())
      .map((field) => getNamedType(field.type) as GraphQLObjectType)
      .filter((type) => type.name !== 'TransactionsSync');
    expect(events.length).toBeGreaterThanOrEqual(6);
    const shape = (event: GraphQLObjectType, name: string) => {
      const field = event.getFields()[name];
      return field && { type: String(field.type), description: field.description };
    };
    const first = events[0]!;
    for (const event of events) {
      expect(shape(event, 'cursor'), event.name).toEqual(shape(first, 'cursor'));
      expect(shape(event, 'receivedAt'), event.name).toEqual(shape(first, 'receivedAt'));
      expect(shape(event, 'cursor')?.description).toMatch(/after/);
    }
    const webhookEvents = events.filter((event) => event.name !== 'AccessRevokedEvent');
    for (const event of webhookEvents) {
      expect(shape(event, 'code'), event.name).toEqual({ type: 'String!', description: expect.any(String) });
      expect(shape(event, 'code')).toEqual(shape(webhookEvents[0]!, 'code'));
    }
  });
});
