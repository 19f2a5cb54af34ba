import { GraphQLError } from 'graphql';
import { MessageType, stringifyMessage, type FormattedExecutionResult } from 'graphql-ws';
import { describe, expect, it } from 'vitest';
import { nextFrame } from '../../../src/server/graphql-ws/next-frames.js';

/** The frame graphql-ws's server sent for a result: errors last, as JSON. */
function graphqlWsFrame(id: string, result: { errors?: readonly GraphQLError[]; [key: string]: unknown }): string {
  const { errors, ...rest } = result;
  const payload = { ...rest, ...(errors ? { errors: errors.map((error) => error.toJSON()) } : {}) };
  return stringifyMessage({ id, type: MessageType.Next, payload });
}

describe('next frames', () => {
  const results = [
    { data: { account: { name: 'Everyday "Go"\u2028é', balances: [1, null, { available: 2.5 }] } } },
    { errors: [new GraphQLError('boom', { extensions: { code: 'UPSTREAM_ERROR' } })], data: null },
    { data: { a: 1 }, extensions: { cost: 3 } },
  ];

  it("are graphql-ws's frames byte for byte, whatever the id", () => {
    for (const id of ['1', 'a"b\\c', 'é'])
      for (const result of results) expect(nextFrame(id, result)).toBe(graphqlWsFrame(id, result));
  });

  it('carry the payload the gateway formatted instead, when it gives one', () => {
    const result = results[1]!;
    const formatted: FormattedExecutionResult = { ...result, errors: [{ message: 'Internal server error' }] };
    expect(nextFrame('7', result, formatted)).toBe(
      stringifyMessage({ id: '7', type: MessageType.Next, payload: formatted }),
    );
  });

  it('serialise a result shared by many subscriptions once', () => {
    const shared = { data: { n: 1 } };
    const first = nextFrame('1', shared);
    shared.data.n = 2; // a result is never changed once sent; this shows the JSON is kept
    expect(nextFrame('2', shared)).toBe(first.replace('"id":"1"', '"id":"2"'));
  });
});
