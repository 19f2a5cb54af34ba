import { coerceInputValue, GraphQLList, GraphQLNonNull, type GraphQLInputObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildGatewaySchema } from '../src/graphql/schema.js';
import { coerceOrdinaryInput, NOT_ORDINARY } from '../src/server/direct-input-coercion.js';

const ORDINARY: unknown[] = [
  [],
  [{ description: 'A' }],
  [{ description: 'A', id: null, connectionId: 'conn_1', amount: -1.5, direction: 'DEBIT' }],
  [
    { description: 'A', amount: 3 },
    { description: 'B', direction: 'CREDIT', amount: null },
  ],
];
const UNUSUAL: unknown[] = [
  null,
  { description: 'A' }, // graphql-js wraps a single item in a list
  [null],
  [{}],
  [{ description: null }],
  [{ description: 1 }],
  [{ description: 'A', amount: '1' }],
  [{ description: 'A', amount: Number.NaN }],
  [{ description: 'A', direction: 'SIDEWAYS' }],
  [{ description: 'A', extra: true }],
  [['A']],
  'A',
];

describe('ordinary input coercion (direct path)', () => {
  it('agrees with graphql-js on ordinary input and leaves everything else to it', async () => {
    const schema = await buildGatewaySchema({ enrichment: { maxQueriesPerRequest: 10 } });
    const input = schema.getType('EnrichmentQueryInput') as GraphQLInputObjectType;
    const type = new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(input)));
    for (const value of ORDINARY) {
      const coerced = coerceOrdinaryInput(value, type);
      expect(coerced).not.toBe(NOT_ORDINARY);
      expect(coerced).toEqual(coerceInputValue(value, type));
    }
    for (const value of UNUSUAL) expect(coerceOrdinaryInput(value, type), JSON.stringify(value)).toBe(NOT_ORDINARY);
  });
});
