import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'graphql-ws';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import type { Browser } from '../support/browser.js';
import { signIn, startGateway, type TestGateway } from '../support/gateway.js';
import { track } from '../support/leftovers.js';
import { socketClient } from '../support/sockets.js';

/** The example app's manifest, as its codegen writes it: `sha256:<hex of the text>` -> text. */
const MANIFEST = 'examples/web/src/__generated__/persisted-documents.json';
const HTML = { accept: 'text/html,application/xhtml+xml' };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** The app's Accounts query as the manifest stores it (its id is the hash of exactly this text). */
function appAccountsQuery(): { text: string; id: string } {
  const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as Record<string, string>;
  const [id, text] = Object.entries(manifest).find(([, document]) => document.startsWith('query Accounts '))!;
  return { id, text };
}
const UNKNOWN_ID = `sha256:${'0'.repeat(64)}`;
const OWN_QUERY = '{ accounts { id name } }';

type Result = {
  data?: { accounts?: unknown[] } | null;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
};

async function post(gateway: TestGateway, browser: Browser, body: unknown): Promise<Result & { status: number }> {
  const response = await browser.request(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, ...(JSON.parse(response.text) as Result) };
}

/** One operation on the socket: its result, or the errors of an `error` message. */
function overSocket(client: Client, payload: Record<string, unknown>): Promise<Result> {
  return new Promise((resolve, reject) => {
    let result: Result | undefined;
    client.subscribe(
      { query: '', ...payload },
      {
        next: (value) => (result = value as Result),
        error: (error) => (Array.isArray(error) ? resolve({ errors: error }) : reject(error as Error)),
        complete: () => (result ? resolve(result) : reject(new Error('completed without a result'))),
      },
    );
  });
}

const codes = (result: Result) => result.errors?.map((error) => error.extensions?.code);

async function manifestFile(content: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'trusted-documents-'));
  track(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'persisted-documents.json');
  await writeFile(path, content);
  return path;
}

describe('trusted documents (TRUSTED_DOCUMENTS)', () => {
  it("runs the app's operations by id over HTTP (documentId and Apollo's extension) and over graphql-ws", async () => {
    const { text: ACCOUNTS, id: ACCOUNTS_ID } = appAccountsQuery();
    const gateway = await startGateway({ TRUSTED_DOCUMENTS: MANIFEST });
    const browser = await signIn(gateway);

    const byDocumentId = await post(gateway, browser, { documentId: ACCOUNTS_ID });
    expect(byDocumentId.errors).toBeUndefined();
    expect(byDocumentId.data!.accounts!.length).toBeGreaterThan(0);
    const byExtension = await post(gateway, browser, {
      extensions: { persistedQuery: { version: 1, sha256Hash: ACCOUNTS_ID } },
    });
    expect(byExtension.data).toEqual(byDocumentId.data);
    // Apollo's own form of the hash (bare hex) names the same document.
    const bareHash = await post(gateway, browser, {
      extensions: { persistedQuery: { version: 1, sha256Hash: sha256(ACCOUNTS) } },
    });
    expect(bareHash.data).toEqual(byDocumentId.data);
    // The manifest's text itself, exactly: its hash is in the manifest (GraphiQL, curl).
    expect((await post(gateway, browser, { query: ACCOUNTS })).data).toEqual(byDocumentId.data);

    const { client } = socketClient(gateway, browser);
    expect((await overSocket(client, { documentId: ACCOUNTS_ID })).data).toEqual(byDocumentId.data);
    // Apollo Client's socket link sends its printed text along with the id: the id decides.
    const withText = await overSocket(client, {
      query: 'query Accounts { accounts { id } }',
      extensions: { persistedQuery: { version: 1, sha256Hash: ACCOUNTS_ID } },
    });
    expect(withText.data).toEqual(byDocumentId.data);
  });

  it('refuses documents of the client’s own and unknown ids on both transports, before anything reaches the platform', async () => {
    const { id: ACCOUNTS_ID } = appAccountsQuery();
    const gateway = await startGateway({ TRUSTED_DOCUMENTS: MANIFEST });
    const browser = await signIn(gateway);
    const { client } = socketClient(gateway, browser);
    expect((await overSocket(client, { documentId: ACCOUNTS_ID })).errors).toBeUndefined(); // the socket is up
    const platformCalls = gateway.sandbox.requests().length;

    const own = await post(gateway, browser, { query: OWN_QUERY });
    expect(own.status).toBe(400);
    expect(codes(own)).toEqual(['TRUSTED_DOCUMENT_REQUIRED']);
    expect(own.errors![0]!.message).toMatch(/only its app's operations/);
    const unknown = await post(gateway, browser, { documentId: UNKNOWN_ID });
    expect(codes(unknown)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    // Apollo's automatic registration (a text with its own hash) registers nothing here.
    const register = {
      query: OWN_QUERY,
      extensions: { persistedQuery: { version: 1, sha256Hash: sha256(OWN_QUERY) } },
    };
    expect(codes(await post(gateway, browser, register))).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    const again = await post(gateway, browser, { extensions: register.extensions });
    expect(codes(again)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    // GET is held to the same rule.
    const get = await browser.request(`${gateway.url}/graphql?query=${encodeURIComponent(OWN_QUERY)}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(get.status).toBe(400);
    expect(codes(JSON.parse(get.text) as Result)).toEqual(['TRUSTED_DOCUMENT_REQUIRED']);
    // An unparseable text is refused for what it is, not parsed.
    expect(codes(await post(gateway, browser, { query: '{ accounts {' }))).toEqual(['TRUSTED_DOCUMENT_REQUIRED']);

    expect(codes(await overSocket(client, { query: OWN_QUERY }))).toEqual(['TRUSTED_DOCUMENT_REQUIRED']);
    expect(codes(await overSocket(client, { documentId: UNKNOWN_ID }))).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    expect(codes(await overSocket(client, { query: OWN_QUERY, extensions: register.extensions }))).toEqual([
      'PERSISTED_QUERY_NOT_FOUND',
    ]);

    expect(gateway.sandbox.requests().length).toBe(platformCalls);
  });

  it('turns GraphiQL off unless GRAPHIQL_WITH_TRUSTED_DOCUMENTS keeps it', async () => {
    const locked = await startGateway({ TRUSTED_DOCUMENTS: MANIFEST, GRAPHIQL_ENABLED: 'true' });
    const browser = await signIn(locked);
    expect((await browser.request(`${locked.url}/graphql`, { headers: HTML })).text).not.toContain('graphiql');
    expect((await browser.request(`${locked.url}/graphiql/assets/graphiql.js`)).status).toBe(404);

    const kept = await startGateway({
      TRUSTED_DOCUMENTS: MANIFEST,
      GRAPHIQL_ENABLED: 'true',
      GRAPHIQL_WITH_TRUSTED_DOCUMENTS: 'true',
    });
    const keptBrowser = await signIn(kept);
    const page = await keptBrowser.request(`${kept.url}/graphql`, { headers: HTML });
    expect(page.status).toBe(200);
    expect(page.text).toContain('/graphiql/assets/graphiql.js');
    expect(() => loadConfig({ GRAPHIQL_WITH_TRUSTED_DOCUMENTS: 'true' })).toThrow(
      /GRAPHIQL_WITH_TRUSTED_DOCUMENTS is only used with TRUSTED_DOCUMENTS/,
    );
  });

  it('refuses to start with a missing or malformed manifest, naming the setting', async () => {
    await expect(startGateway({ TRUSTED_DOCUMENTS: '/nonexistent/persisted-documents.json' })).rejects.toThrow(
      /^TRUSTED_DOCUMENTS \/nonexistent\/persisted-documents\.json cannot be read/,
    );
    await expect(startGateway({ TRUSTED_DOCUMENTS: await manifestFile('["query A { a }"]') })).rejects.toThrow(
      /^TRUSTED_DOCUMENTS .* must be a JSON object/,
    );
    // An id that is not the hash of its text would let that id run some other document.
    const { id: ACCOUNTS_ID } = appAccountsQuery();
    const forged = JSON.stringify({ [ACCOUNTS_ID]: OWN_QUERY });
    await expect(startGateway({ TRUSTED_DOCUMENTS: await manifestFile(forged) })).rejects.toThrow(
      /^TRUSTED_DOCUMENTS .* has an entry that is not/,
    );
  });
});
