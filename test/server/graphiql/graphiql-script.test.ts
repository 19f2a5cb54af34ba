import { describe, expect, it } from 'vitest';
import { GRAPHIQL_INIT_SCRIPT } from '../../../src/server/graphiql/graphiql-init.js';

/** Runs the page's script against stand-ins for the DOM and GraphiQL (no browser on these machines). */
function mount(inner: (params: unknown, options?: unknown) => unknown) {
  const rendered: { fetcher?: (params: unknown, options?: unknown) => unknown; defaultQuery?: string } = {};
  const attributes = new Map<string, string>();
  const bar = {
    innerHTML: '<span>Open finance gateway: signed in</span>',
    children: [] as Array<{ textContent?: string; href?: string }>,
    setAttribute: (name: string, value: string) => attributes.set(name, value),
    getAttribute: (name: string) => attributes.get(name) ?? null,
    appendChild(child: { textContent?: string; href?: string }) {
      this.children.push(child);
    },
  };
  const document = {
    getElementById: (id: string) => (id === 'bar' ? bar : id === 'sign-out' ? null : {}),
    createElement: () => ({ style: {} }),
  };
  const window = { location: { protocol: 'http:', host: 'localhost:4000', origin: 'http://localhost:4000' } };
  const GraphiQL = Object.assign(() => undefined, { createFetcher: () => inner });
  const React = { createElement: (_component: unknown, props: typeof rendered) => props };
  const ReactDOM = { createRoot: () => ({ render: (props: typeof rendered) => Object.assign(rendered, props) }) };
  // The page's inline script, run as the browser would run it (that is what is under test).
  // oxlint-disable-next-line typescript/no-implied-eval
  new Function('window', 'document', 'GraphiQL', 'React', 'ReactDOM', 'fetch', GRAPHIQL_INIT_SCRIPT)(
    window,
    document,
    GraphiQL,
    React,
    ReactDOM,
    fetch,
  );
  return { rendered, bar, state: () => attributes.get('data-state') };
}

describe('the GraphiQL page script', () => {
  it('turns UNAUTHENTICATED into "signed out" with a sign-in link, instead of raw JSON', async () => {
    const page = mount(() =>
      Promise.resolve({ errors: [{ message: 'Sign in first', extensions: { code: 'UNAUTHENTICATED' } }] }),
    );
    const result = (await page.rendered.fetcher!({ query: '{ me { id } }' })) as { errors: Array<{ message: string }> };
    expect(result.errors[0]!.message).toContain('Sign in again: http://localhost:4000/auth/login');
    expect(page.state()).toBe('signed-out');
    expect(page.bar.children.map((child) => child.textContent)).toEqual([
      'Open finance gateway: signed out',
      'Sign in',
    ]);
  });

  it('turns a subscription closed with 4401 into the same message, not a stack trace, and ends it', async () => {
    // GraphiQL's fetcher is an async function: the subscription's iterator arrives in a promise.
    const page = mount(async () => ({
      [Symbol.asyncIterator]() {
        return {
          next: () =>
            Promise.reject(
              Object.assign(new Error('Socket closed with event 4401 Session ended'), {
                code: 4401,
                reason: 'Session ended',
              }),
            ),
        };
      },
    }));
    const stream = (
      (await page.rendered.fetcher!({ query: 'subscription { incomeEvents { incomeId } }' })) as AsyncIterable<{
        errors: Array<{ message: string }>;
      }>
    )[Symbol.asyncIterator]();
    const first = await stream.next();
    expect(first.value.errors[0]!.message).toContain('Your session has ended');
    expect((await stream.next()).done).toBe(true);
    expect(page.state()).toBe('signed-out');
  });

  it('sends a single-operation document under its own name when GraphiQL still holds the previous one', async () => {
    const seen: unknown[] = [];
    const page = mount((params) => {
      seen.push(params);
      return Promise.resolve({ data: {} });
    });
    // GraphiQL updates operationName a moment after an edit: run at once, it is stale.
    await page.rendered.fetcher!({
      query: 'subscription Live { accountEvents { code } }',
      operationName: 'EnrichDemo',
    });
    await page.rendered.fetcher!({ query: '{ me { id } }', operationName: 'EnrichDemo' });
    await page.rendered.fetcher!({ query: 'query A { a } query B { b }', operationName: 'B' });
    expect(seen).toEqual([
      { query: 'subscription Live { accountEvents { code } }', operationName: 'Live' },
      { query: '{ me { id } }' },
      { query: 'query A { a } query B { b }', operationName: 'B' },
    ]);
  });

  it('passes other results through, and its default query fits an editor (80 columns)', async () => {
    const page = mount(() => Promise.resolve({ data: { me: { id: 'user_1' } } }));
    expect(await page.rendered.fetcher!({ query: '{ me { id } }' })).toEqual({ data: { me: { id: 'user_1' } } });
    expect(page.state()).toBeUndefined();
    expect(Math.max(...page.rendered.defaultQuery!.split('\n').map((line) => line.length))).toBeLessThanOrEqual(80);
  });
});
