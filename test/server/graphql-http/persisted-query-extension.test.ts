import { describe, expect, it } from 'vitest';
import { signIn, startGateway } from '../../support/gateway.js';
import { sessionCookie } from '../../support/session-cookie.js';

describe('the persisted-query extension over HTTP', () => {
  it.each([null, false, 0, ''])(
    'runs the text of a request whose persistedQuery is %j, as Apollo reads a falsy extension: none',
    async (persistedQuery) => {
      const gateway = await startGateway();
      const browser = await signIn(gateway);
      const response = await fetch(`${gateway.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: sessionCookie(browser, gateway.url) },
        body: JSON.stringify({ query: '{ __typename }', extensions: { persistedQuery } }),
      });
      expect([response.status, await response.json()]).toEqual([200, { data: { __typename: 'Query' } }]);
    },
  );

  it('answers an id alone, without TRUSTED_DOCUMENTS, with PERSISTED_QUERY_NOT_SUPPORTED (Apollo Client then sends the text)', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const response = await fetch(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: sessionCookie(browser, gateway.url) },
      body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: 'ab'.repeat(32) } } }),
    });
    const body = (await response.json()) as { errors: Array<{ extensions: { code: string } }> };
    expect(body.errors[0]!.extensions.code).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
  });
});
