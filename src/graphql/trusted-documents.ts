import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { PersistedQueryOptions } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { ErrorCode } from './errors.js';

/** Apollo's persisted-query code, so Apollo Client's persisted query link recognises it. */
export const PERSISTED_QUERY_NOT_FOUND = 'PERSISTED_QUERY_NOT_FOUND';
const KEY_FORM = /^sha256:[0-9a-f]{64}$/;
const BARE_HASH = /^[0-9a-f]{64}$/;

/** What a request names, on either transport: its text, and an id in either of the two protocols. */
export interface DocumentRequest {
  query?: unknown;
  /** GraphQL over HTTP's persisted-document parameter. */
  documentId?: unknown;
  /** Apollo's protocol: `extensions.persistedQuery.sha256Hash`. */
  extensions?: unknown;
}

/** A refusal's HTTP status: Apollo answers PERSISTED_QUERY_NOT_FOUND with 200, which its clients expect. */
export type Admission = { id: string; text: string } | { error: GraphQLError; httpStatus: number };

const sha256Key = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** `sha256:<hex>` as the manifest writes it; Apollo's convention, the bare hex, means the same. */
function normaliseId(id: string): string {
  return BARE_HASH.test(id) ? `sha256:${id}` : id;
}

function requestedId(request: DocumentRequest): unknown {
  if (request.documentId !== undefined && request.documentId !== null) return request.documentId;
  const extensions = request.extensions;
  if (typeof extensions !== 'object' || extensions === null) return undefined;
  const persisted = (extensions as { persistedQuery?: unknown }).persistedQuery;
  if (typeof persisted !== 'object' || persisted === null) return undefined;
  return (persisted as { sha256Hash?: unknown }).sha256Hash;
}

/**
 * Reads the manifest at start: a missing, unreadable or malformed file stops the gateway with one
 * line naming the setting. Each key must be the sha256 of its text (the client preset's form), so a
 * hand-edited entry cannot make an id run some other document.
 */
export function loadTrustedDocuments(path: string): TrustedDocuments {
  const fail = (problem: string) => new Error(`TRUSTED_DOCUMENTS ${path} ${problem}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw fail(`cannot be read as JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw fail('must be a JSON object of "sha256:<hex>": "<document>" entries');
  const entries = Object.entries(parsed);
  if (entries.length === 0) throw fail('holds no documents');
  for (const [key, text] of entries) {
    if (!KEY_FORM.test(key) || typeof text !== 'string' || sha256Key(text) !== key)
      throw fail(`has an entry that is not "sha256:<hex of its text>": "<document>" (${key.slice(0, 80)})`);
  }
  return createTrustedDocuments(new Map(entries as Array<[string, string]>));
}

/**
 * The one decision both transports apply before anything is parsed: a request runs a document of
 * the manifest, named by its id, or is refused with a code. A text sent along with an id is not
 * used (Apollo Client's socket link always sends one); a text alone runs only when its own hash is
 * in the manifest, which lets GraphiQL or curl run the app's documents pasted exactly, and nothing
 * else.
 */
export function createTrustedDocuments(documents: ReadonlyMap<string, string>) {
  return {
    size: documents.size,

    admit(request: DocumentRequest): Admission {
      const id = requestedId(request);
      if (id !== undefined && id !== null) {
        const key = typeof id === 'string' ? normaliseId(id) : '';
        const text = documents.get(key);
        if (text !== undefined) return { id: key, text };
        return {
          error: new GraphQLError('PersistedQueryNotFound: no operation of this app has that id.', {
            extensions: { code: PERSISTED_QUERY_NOT_FOUND },
          }),
          httpStatus: 200,
        };
      }
      if (typeof request.query === 'string' && request.query !== '') {
        const key = sha256Key(request.query);
        if (documents.has(key)) return { id: key, text: request.query };
      }
      return {
        error: new GraphQLError(
          "This gateway runs only its app's operations: send the operation's id (documentId, or extensions.persistedQuery.sha256Hash), not a document of your own.",
          { extensions: { code: ErrorCode.TRUSTED_DOCUMENT_REQUIRED } },
        ),
        httpStatus: 400,
      };
    },

    /**
     * Apollo's persisted-query cache, filled with the manifest and read-only: Apollo looks up each
     * admitted id in it, and nothing a client sends is ever registered.
     */
    apolloCache: {
      async get(key: string) {
        return documents.get(normaliseId(key.replace(/^apq:/, '')));
      },
      async set() {},
      async delete() {
        return false;
      },
    } satisfies NonNullable<PersistedQueryOptions['cache']>,
  };
}

export type TrustedDocuments = ReturnType<typeof createTrustedDocuments>;
