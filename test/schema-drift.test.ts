import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildGatewaySchema, printGatewaySchema } from '../src/graphql/schema.js';

describe('schema.graphql', () => {
  it('matches the schema the code builds (run `npm run schema:emit` and commit when this fails)', async () => {
    const committed = readFileSync(resolve(__dirname, '../schema.graphql'), 'utf8');
    const built = printGatewaySchema(await buildGatewaySchema({ enrichment: { maxQueriesPerRequest: 1000 } }));
    expect(built).toBe(committed);
  });
});
