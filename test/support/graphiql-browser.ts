import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TestGateway } from './gateway.js';

// What the functions passed to page.evaluate use: they run in the page, not in Node.
declare const document: { querySelector(selector: string): unknown };
declare function fetch(url: string, init: object): Promise<{ status: number; json(): Promise<{ data?: unknown }> }>;

export const DEMO_USER = 'aroha@demo.example';

/** At the sandbox identity provider: e-mail and password, then the authenticator code (as its page shows it). */
export async function signInAtIdentityProvider(page: Page, gateway: TestGateway): Promise<void> {
  const user = gateway.sandbox.identity.users.byEmail(DEMO_USER)!;
  await page.locator('#email').fill(DEMO_USER);
  await page.locator('#secret').fill(user.demoSecret!);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.locator('#code').waitFor();
  await page.locator('#code').fill(gateway.sandbox.identity.currentTotp(DEMO_USER)!);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * From the gateway's sign-in link through the identity provider (password and authenticator
 * code), the consumer information page and the sandbox's consent page into GraphiQL, as a person
 * would, in a new tab of `context`.
 */
export async function signInToGraphiQL(context: BrowserContext, gateway: TestGateway): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${gateway.url}/graphql`);
  await page.getByRole('link', { name: 'Sign in' }).click();
  await signInAtIdentityProvider(page, gateway);
  await page.getByRole('link', { name: /^Continue to/ }).click(); // the consumer information page
  await page
    .getByRole('button', { name: /^Connect as/ })
    .first()
    .click();
  await page.waitForURL(`${gateway.url}/graphql`);
  await page.locator('.graphiql-execute-button').waitFor();
  expect(await page.locator('#bar').textContent()).toContain('signed in');
  return page;
}

/** Replaces the query editor's text (GraphiQL 3's CodeMirror 5 instance). */
export async function setQuery(page: Page, query: string): Promise<void> {
  await page.evaluate((text) => {
    const editor = document.querySelector('.graphiql-query-editor .CodeMirror') as {
      CodeMirror: { setValue(value: string): void };
    };
    editor.CodeMirror.setValue(text);
  }, query);
}

/** The query editor's whole text. */
export function queryText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const editor = document.querySelector('.graphiql-query-editor .CodeMirror') as {
      CodeMirror: { getValue(): string };
    };
    return editor.CodeMirror.getValue();
  });
}

/** The whole text of GraphiQL's result pane (the DOM holds only the lines in view). */
export function resultText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const pane = document.querySelector('.result-window .CodeMirror') as {
      CodeMirror: { getValue(): string };
    } | null;
    return pane?.CodeMirror.getValue() ?? '';
  });
}

/** Runs in a page of a gateway: a GraphQL request as GraphiQL sends it, the page's session cookie with it. */
export function graphqlInPage(page: Page, query: string): Promise<{ status: number; data?: unknown }> {
  return page.evaluate(async (text) => {
    const response = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: text }),
    });
    return { status: response.status, data: (await response.json()).data };
  }, query);
}
