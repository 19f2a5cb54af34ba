import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kind, parse, print, visit, type DefinitionNode, type FragmentDefinitionNode } from 'graphql';
import type { Client } from 'graphql-ws';
import type { Browser } from './browser.js';
import type { TestGateway } from './gateway.js';

/** One operation of test/operations/*.graphql, as a client would send it (with its fragments). */
export interface NamedOperation {
  name: string;
  kind: 'query' | 'mutation' | 'subscription';
  text: string;
}

/** What a transport answered, reduced to what a client acts on: the data and each error's code and path. */
export interface Answer {
  data: unknown;
  errors: Array<{ code: unknown; path: unknown }> | undefined;
}

/** Every operation in test/operations, each printed with the fragments it spreads (transitively). */
export function operationsOnFile(): NamedOperation[] {
  const folder = join(__dirname, '..', 'operations');
  const definitions: DefinitionNode[] = readdirSync(folder)
    .filter((file) => file.endsWith('.graphql'))
    .flatMap((file) => parse(readFileSync(join(folder, file), 'utf8')).definitions);
  const fragments = new Map(
    definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );
  const spreadsOf = (node: DefinitionNode, into: Set<string>) =>
    visit(node, {
      FragmentSpread(spread) {
        if (into.has(spread.name.value)) return;
        into.add(spread.name.value);
        spreadsOf(fragments.get(spread.name.value)!, into);
      },
    });
  return definitions.flatMap((definition) => {
    if (definition.kind !== Kind.OPERATION_DEFINITION) return [];
    const used = new Set<string>();
    spreadsOf(definition, used);
    const text = [definition, ...[...used].map((name) => fragments.get(name)!)].map((d) => print(d)).join('\n\n');
    return [{ name: definition.name!.value, kind: definition.operation, text }];
  });
}

function answerOf(body: { data?: unknown; errors?: Array<{ path?: unknown; extensions?: { code?: unknown } }> }) {
  return {
    data: body.data ?? null,
    errors: body.errors?.map((error) => ({ code: error.extensions?.code, path: error.path ?? null })),
  };
}

/** POST /graphql with the browser's session cookie. */
export async function overHttp(
  gateway: TestGateway,
  browser: Browser,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<Answer> {
  const response = await browser.request(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return answerOf(JSON.parse(response.text) as never);
}

/**
 * One query or mutation on a graphql-ws socket: its single result, or the errors the server sent
 * in an `error` message (refused before execution).
 */
export function overSocket(client: Client, query: string, variables: Record<string, unknown> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let result: Answer | undefined;
    client.subscribe(
      { query, variables },
      {
        next: (value) => (result = answerOf(value as never)),
        error: (error) => (Array.isArray(error) ? resolve(answerOf({ errors: error })) : reject(error as Error)),
        complete: () => (result ? resolve(result) : reject(new Error('completed without a result'))),
      },
    );
  });
}
