import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { execute, signIn, startGateway } from '../../support/gateway.js';

interface Row {
  id: string;
  enrichment?: { id: string | null; merchant?: { name: string | null } | null } | null;
}
interface Page {
  transactions: { nodes: Row[]; edges?: Array<{ node: Row }> };
}
const page = (text: string) => parse(text) as TypedDocumentNode<Page, Record<string, unknown>>;

/** Where each error landed, as `nodes.3.enrichment`, in row order. */
const pathsOf = (errors: Array<{ path?: Array<string | number> }> | undefined) =>
  (errors ?? [])
    .map((error) => error.path!.slice(1).join('.'))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));

describe('a page of transactions and its enrichment', () => {
  it('is asked for in one search whether selected through nodes, edges or a fragment', async () => {
    const gateway = await startGateway({ ENRICHMENT_CACHE_TTL_SECONDS: '0' });
    const browser = await signIn(gateway);
    const response = await execute(
      gateway,
      browser,
      page(`query {
        transactions(first: 20) {
          nodes { id enrichment { id } }
          edges { node { ...Enriched } }
        }
      }
      fragment Enriched on Transaction { id enrichment { id merchant { name } } }`),
    );

    expect(response.errors).toBeUndefined();
    const { nodes, edges } = response.data!.transactions;
    expect(nodes).toHaveLength(20);
    for (const [index, node] of nodes.entries()) {
      expect(node.enrichment!.id).toBe(node.id);
      expect(edges![index]!.node.enrichment!.id).toBe(node.id);
    }
    expect(gateway.sandbox.requests({ path: '/v1/search' })).toHaveLength(1);
  });

  it('is not asked for when @skip or @include leaves it out', async () => {
    const gateway = await startGateway({ ENRICHMENT_CACHE_TTL_SECONDS: '0' });
    const browser = await signIn(gateway);
    const response = await execute(
      gateway,
      browser,
      page(`query ($skip: Boolean!, $include: Boolean!) {
        transactions(first: 20) {
          nodes { id enrichment @skip(if: $skip) { id } }
          edges { node { id ...Enriched @include(if: $include) } }
        }
      }
      fragment Enriched on Transaction { enrichment { id } }`),
      { skip: true, include: false },
    );

    expect(response.errors).toBeUndefined();
    expect(response.data!.transactions.nodes).toHaveLength(20);
    expect(response.data!.transactions.nodes[0]).not.toHaveProperty('enrichment');
    expect(gateway.sandbox.requests({ path: '/v1/search' })).toHaveLength(0);
  });

  it('gives rows past the request’s lookup limit ENRICHMENT_LIMIT on their own field, keeping the rows', async () => {
    const gateway = await startGateway({ ENRICHMENT_CACHE_TTL_SECONDS: '0', ENRICHMENT_MAX_QUERIES_PER_REQUEST: '5' });
    const browser = await signIn(gateway);
    const response = await execute(
      gateway,
      browser,
      page('{ transactions(first: 8) { nodes { id enrichment { id } } } }'),
    );

    const nodes = response.data!.transactions.nodes;
    expect(nodes).toHaveLength(8);
    expect(nodes.slice(0, 5).map((node) => node.enrichment!.id)).toEqual(nodes.slice(0, 5).map((node) => node.id));
    expect(nodes.slice(5).map((node) => node.enrichment)).toEqual([null, null, null]);
    expect(pathsOf(response.errors)).toEqual(['nodes.5.enrichment', 'nodes.6.enrichment', 'nodes.7.enrichment']);
    for (const error of response.errors!)
      expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'ENRICHMENT_LIMIT' });
  });

  it('fails each row’s field alone when the search fails, keeping the page', async () => {
    const gateway = await startGateway({ ENRICHMENT_CACHE_TTL_SECONDS: '0' });
    const browser = await signIn(gateway);
    gateway.sandbox.setEnrichmentFault({ status: 503 });
    const response = await execute(
      gateway,
      browser,
      page('{ transactions(first: 3) { nodes { id enrichment { id } } } }'),
    );

    expect(response.status).toBe(200);
    expect(response.data!.transactions.nodes.map((node) => node.enrichment)).toEqual([null, null, null]);
    expect(pathsOf(response.errors)).toEqual(['nodes.0.enrichment', 'nodes.1.enrichment', 'nodes.2.enrichment']);
    for (const error of response.errors!)
      expect(error.extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', upstream: 'enrichment' });
  });
});
