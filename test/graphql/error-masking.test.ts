import { Writable } from 'node:stream';
import { getIntrospectionQuery, GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { formatError, reportExecutionError } from '../../src/graphql/format-error.js';
import { UpstreamError } from '../../src/upstream/upstream-error.js';
import { Browser } from '../support/browser.js';
import { signIn, startGateway } from '../support/gateway.js';

function capturingFormatter() {
  const lines: string[] = [];
  const destination = new Writable({ write: (chunk: Buffer, _e, done) => (lines.push(chunk.toString()), done()) });
  const logger = createLogger({ level: 'debug', destination });
  // As every transport does: report with the request's logger, then shape for the client.
  const format: typeof formatError = (formatted, error) => {
    reportExecutionError(logger, error);
    return formatError(formatted, error);
  };
  return { format, lines };
}

function wrapped(original: Error): GraphQLError {
  return new GraphQLError(original.message, { originalError: original, path: ['enrich'] });
}

describe('error masking', () => {
  it('masks an unexpected error and logs it in full', () => {
    const { format, lines } = capturingFormatter();
    const formatted = format(
      {
        message: 'db password is hunter2',
        path: ['enrich'],
        extensions: { code: 'INTERNAL_SERVER_ERROR', stacktrace: ['x'] },
      },
      wrapped(new Error('db password is hunter2')),
    );
    expect(formatted).toEqual({
      message: 'Internal server error',
      path: ['enrich'],
      locations: undefined,
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
    expect(lines.join()).toContain('hunter2');
  });

  it('maps an upstream failure to its code without the upstream message', () => {
    const { format } = capturingFormatter();
    const error = new UpstreamError('core', 'http', 'core GET /v1/me answered 503', {
      status: 503,
      platformMessage: 'internal detail',
    });
    const formatted = format({ message: error.message, extensions: { code: 'INTERNAL_SERVER_ERROR' } }, wrapped(error));
    expect(formatted.extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE', upstream: 'core' });
    expect(JSON.stringify(formatted)).not.toContain('internal detail');
  });

  it('passes coded errors through without stack traces', () => {
    const { format } = capturingFormatter();
    const coded = new GraphQLError('bad', { extensions: { code: 'BAD_USER_INPUT', argumentName: 'queries' } });
    expect(
      format(
        { message: 'bad', extensions: { code: 'BAD_USER_INPUT', argumentName: 'queries', stacktrace: ['x'] } },
        wrapped(coded),
      ).extensions,
    ).toEqual({ code: 'BAD_USER_INPUT', argumentName: 'queries' });
  });
});

describe('request limits', () => {
  async function post(url: string, browser: Browser, query: string) {
    const response = await browser.request(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    return {
      status: response.status,
      body: JSON.parse(response.text) as { errors?: Array<{ message: string; extensions?: { code?: string } }> },
    };
  }

  it('refuses documents with too many aliases', async () => {
    const gateway = await startGateway({ GRAPHQL_MAX_ALIASES: '3' });
    const browser = await signIn(gateway);
    const query = `{ ${Array.from({ length: 4 }, (_, i) => `a${i}: me { id }`).join(' ')} }`;
    const response = await post(gateway.url, browser, query);
    expect(response.status).toBe(400);
    expect(response.body.errors![0]).toMatchObject({
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      message: expect.stringContaining('4 aliases'),
    });
    expect(gateway.sandbox.requests({ path: '/v1/me' }).length).toBe(1); // only the sign-in's own call
  });

  it('refuses documents nested deeper than the limit', async () => {
    const gateway = await startGateway({ GRAPHQL_MAX_DEPTH: '3' });
    const browser = await signIn(gateway);
    const response = await post(
      gateway.url,
      browser,
      '{ enrich(queries: [{description: "KFC"}]) { category { personalFinance { name } } } }',
    );
    expect(response.body.errors![0]!.message).toContain('depth 4 exceeds the limit of 3');
    expect(gateway.sandbox.requests({ path: '/v1/search' })).toHaveLength(0);
  });

  it("lets the standard introspection query (GraphiQL's) through the depth limit when introspection is on", async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const response = await post(gateway.url, browser, getIntrospectionQuery());
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
  });

  it('keeps CSRF prevention on: a simple cross-site GET is refused', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const response = await browser.request(`${gateway.url}/graphql?query=${encodeURIComponent('{ me { id } }')}`);
    expect(response.status).toBe(400);
    expect(response.text).toContain('CSRF');
  });

  it('hides introspection and schema hints when introspection is off', async () => {
    const gateway = await startGateway({ GRAPHQL_INTROSPECTION: 'false' });
    const browser = await signIn(gateway);
    const introspection = await post(gateway.url, browser, '{ __schema { types { name } } }');
    expect(introspection.body.errors![0]!.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const typo = await post(gateway.url, browser, '{ mee { id } }');
    expect(typo.body.errors![0]!.message).not.toContain('Did you mean');
  });
});
