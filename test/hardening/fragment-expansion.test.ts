import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { documentExpansion } from '../../src/graphql/limits.js';
import { signIn, startGateway } from '../support/gateway.js';
import { socketClient } from '../support/sockets.js';
import { overSocket } from '../support/transports.js';

/**
 * The largest document the token limit admits that is all fragment spreads: 25 KB, 4,990
 * spreads of a one-field fragment. Its cost (46,783) is under the default cost limit, yet it
 * expands to 4,991 fields from 2 written ones; it must be refused before it executes.
 */
const SPREADS = `{ me { ${'...F '.repeat(4_990)}} } fragment F on User { id }`;

/** Fragments eleven deep, each spreading the next twice: 2 written fields expand to 2,049. */
const NESTED = [
  `{ me { ...F0 } }`,
  ...Array.from({ length: 11 }, (_, level) => `fragment F${level} on User { ...F${level + 1} ...F${level + 1} }`),
  'fragment F11 on User { id }',
].join('\n');

const refusal = {
  code: 'GRAPHQL_VALIDATION_FAILED',
  expandedFields: 4_991,
  writtenFields: 2,
  limit: 2_000,
};

describe('fragment expansion before execution', () => {
  it('refuses over HTTP a document whose fragments expand far beyond what it writes, without executing it', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const before = gateway.sandbox.requests({ path: '/v1/me' }).length;
    const response = await browser.request(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: SPREADS }),
    });
    const body = JSON.parse(response.text) as { data?: unknown; errors?: Array<Record<string, unknown>> };
    expect(response.status).toBe(400);
    expect(body.data).toBeUndefined();
    expect(body.errors).toHaveLength(1);
    expect(body.errors![0]!.message).toMatch(/expands to 4991 fields/);
    expect(body.errors![0]!.extensions).toMatchObject(refusal);
    expect(gateway.sandbox.requests({ path: '/v1/me' })).toHaveLength(before);
  });

  it('refuses the same document on the socket with the same code', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const { client } = socketClient(gateway, browser);
    const before = gateway.sandbox.requests({ path: '/v1/me' }).length;
    const answer = await overSocket(client, SPREADS);
    expect(answer).toEqual({ data: null, errors: [{ code: 'GRAPHQL_VALIDATION_FAILED', path: null }] });
    expect(gateway.sandbox.requests({ path: '/v1/me' })).toHaveLength(before);
  });

  it('refuses fragments that double at each level, and still runs a document that spreads a fragment a few times', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const post = async (query: string) => {
      const response = await browser.request(`${gateway.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      return {
        status: response.status,
        body: JSON.parse(response.text) as { errors?: Array<Record<string, unknown>> },
      };
    };
    const nested = await post(NESTED);
    expect(nested.status).toBe(400);
    // Its cost is over the limit too; the expansion is refused in its own words.
    expect(nested.body.errors).toContainEqual(
      expect.objectContaining({
        extensions: expect.objectContaining({ code: 'GRAPHQL_VALIDATION_FAILED', expandedFields: 2_049 }),
      }),
    );
    const few = await post(`{ me { ...F ...F ...F } a: me { ...F } } fragment F on User { id email }`);
    expect(few.status).toBe(200);
    expect(few.body.errors).toBeUndefined();
  });

  it('counts each fragment once: forty doubling levels are counted without expanding them', () => {
    const deep = [
      '{ me { ...F0 } }',
      ...Array.from({ length: 40 }, (_, level) => `fragment F${level} on User { ...F${level + 1} ...F${level + 1} }`),
      'fragment F40 on User { id }',
    ].join('\n');
    expect(documentExpansion(parse(deep))).toEqual({ written: 2, expanded: 2 ** 40 + 1 });
    // A cycle (refused by validation afterwards) counts nothing instead of looping.
    const cycle = parse('{ me { ...A } } fragment A on User { id ...B } fragment B on User { ...A }');
    expect(documentExpansion(cycle)).toEqual({ written: 2, expanded: 2 });
  });
});
