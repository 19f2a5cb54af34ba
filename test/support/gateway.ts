import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { createLogger } from '@open-finance-gateway/common/logger';
import type { Sandbox } from '@open-finance-gateway/sandbox';
import { approveConsent, signInAtProvider } from '@open-finance-gateway/sandbox/testing';
import { createApp, type AppOptions, type GatewayApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { GATEWAY_EVENT_NAMES, type GatewayEventMap } from '../../src/lib/gateway-events.js';
import { recordLogLine, recordSandboxSecrets } from './audit.js';
import { Browser, type BrowserResponse } from './browser.js';
import { EventRecorder } from './event-recorder.js';
import { track } from './leftovers.js';

export { approveConsent };

export interface TestGateway {
  app: GatewayApp;
  url: string;
  sandbox: Sandbox;
  /** Parsed log lines the gateway has written so far. */
  logs: Array<Record<string, unknown>>;
  /** Resolves with the first log line (past or future) that matches. */
  waitForLog(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  /**
   * Resolves once `count` subscriptions (of `type`, if given) have started from now on: live
   * delivery is in effect (the gateway's own event, not log text). Call before subscribing.
   */
  subscriptionsStarted(count: number, type?: string): Promise<void>;
  /** Every webhook the gateway published so far (its own event, not log text). */
  published: Array<{ userId: string; type: string; code: string }>;
  /** Every event of that kind so far (the live list). */
  events<K extends keyof GatewayEventMap>(name: K): Array<GatewayEventMap[K][0]>;
  /** Resolves with the first event of that kind (past or future) that matches. */
  waitForEvent<K extends keyof GatewayEventMap>(
    name: K,
    match?: (event: GatewayEventMap[K][0]) => boolean,
  ): Promise<GatewayEventMap[K][0]>;
}

/**
 * Starts a real gateway on port 0 against its embedded sandbox, logging at debug level into
 * memory (and the audit), the user-data store off unless `env` sets USER_DATA_STORE. Stopped
 * automatically after the test.
 */
export async function startGateway(env: Record<string, string> = {}, options: AppOptions = {}): Promise<TestGateway> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'debug',
    SHUTDOWN_DELAY_MS: '0',
    // Off unless a test turns it on: most tests change the sandbox's data (or its faults) and read
    // at once, before the webhook that announces the change; the store's own tests turn it on.
    USER_DATA_STORE: 'off',
    ...env,
  });
  const logs: Array<Record<string, unknown>> = [];
  const logged = new EventEmitter();
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        recordLogLine(line);
        const parsed = JSON.parse(line) as Record<string, unknown>;
        logs.push(parsed);
        logged.emit('line', parsed);
      }
      done();
    },
  });
  async function waitForLog(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    const seen = logs.find(match);
    if (seen) return seen;
    const controller = new AbortController();
    for await (const [line] of EventEmitter.on(logged, 'line', { signal: controller.signal }) as AsyncIterable<
      [Record<string, unknown>]
    >) {
      if (match(line)) {
        controller.abort();
        return line;
      }
    }
    throw new Error('log stream ended');
  }
  const app = createApp(config, {
    ...options,
    sandbox: { recordRequests: true, ...options.sandbox },
    logger: createLogger({ level: 'debug', destination }),
  });
  await app.start();
  const sandbox = app.sandbox!;
  const recorder = new EventRecorder();
  for (const name of GATEWAY_EVENT_NAMES)
    app.events.on(name, (event: unknown) => recorder.record(name, event as never));
  const waitForEvent: TestGateway['waitForEvent'] = (name, match) => recorder.waitFor(name, match);
  const published = recorder.all('webhook-published');
  const subscriptionsStarted = (count: number, type?: string) =>
    recorder.more('subscription-started', count, (event) => type === undefined || event.type === type);
  track(async () => {
    recordSandboxSecrets(sandbox);
    await app.stop();
  });
  return {
    app,
    url: app.url,
    sandbox,
    logs,
    waitForLog,
    subscriptionsStarted,
    published,
    events: (name) => recorder.all(name),
    waitForEvent,
  };
}

/** The sandbox provider's demo users with a second factor, by test user index (authenticator, SMS, PIN + SMS). */
export const MFA_DEMO_USERS = ['aroha@demo.example', 'james@demo.example', 'mere@demo.example'];

/**
 * What a browser does from `/auth/login` (the gateway's start URL, `base` its origin): signs the
 * app user in at the sandbox identity provider (`email`, with their second factor) and follows the
 * gateway's callback. Returns the callback's answer: a 303 to the consumer information page for
 * a user not yet connected, else to `returnTo`.
 */
export async function signInToApp(
  browser: Browser,
  sandbox: Sandbox,
  base: string,
  email: string,
  query = '',
): Promise<BrowserResponse> {
  let login = await browser.request(`${base}/auth/login${query}`);
  // Started at another address of this machine: the gateway sends it to its public origin first.
  if (login.location && new URL(login.location).pathname === '/auth/login')
    login = await browser.request(login.location);
  if (login.status !== 302 || !login.location) throw new Error(`login answered ${login.status}: ${login.text}`);
  const back = await signInAtProvider(
    browser,
    sandbox,
    login.location,
    email,
    `${new URL(login.location).searchParams.get('redirect_uri')}`,
  );
  return browser.request(back.href);
}

/**
 * What a signed-in browser does on the consumer information page: follows its button,
 * `/auth/connect`, which starts the platform's connection flow. Returns that response (302 to the
 * platform), or the page's own answer when it is not 200.
 */
export async function startConnection(browser: Browser, base: string, query = ''): Promise<BrowserResponse> {
  const page = await browser.request(`${base}/auth/consumer-info${query}`);
  if (page.status !== 200) return page;
  const href = /href="(\/auth\/connect\?[^"]+)"/.exec(page.text)?.[1];
  if (!href) throw new Error('the consumer information page has no way on to the platform');
  return browser.request(new URL(href.replaceAll('&amp;', '&'), base).href);
}

/**
 * Signs a demo app user in (index into MFA_DEMO_USERS, or an e-mail) as a browser would and, if
 * they have no bank connection yet, connects one through the consumer information page and the
 * platform's consent (the sandbox's demo user of the same index). Returns that browser.
 */
export async function signIn(
  gateway: Pick<TestGateway, 'url' | 'sandbox'>,
  userIndex: number | string = 0,
): Promise<Browser> {
  const browser = new Browser();
  const email = typeof userIndex === 'string' ? userIndex : MFA_DEMO_USERS[userIndex]!;
  const landed = await signInToApp(browser, gateway.sandbox, gateway.url, email);
  if (landed.status !== 303) throw new Error(`sign-in callback answered ${landed.status}: ${landed.text}`);
  if (!landed.location?.includes('/auth/consumer-info')) return browser;
  const connect = await startConnection(browser, gateway.url);
  if (connect.status !== 302 || !connect.location) throw new Error(`connect answered ${connect.status}`);
  const back = await approveConsent(browser, connect.location, {
    userIndex: typeof userIndex === 'number' ? userIndex : 0,
  });
  const callback = await browser.request(back.href);
  if (callback.status !== 303) throw new Error(`callback answered ${callback.status}: ${callback.text}`);
  return browser;
}

/** The app user id (the provider's `sub`) of a demo user: what the gateway's events and stores key on. */
export function appUserId(gateway: TestGateway, userIndex: number | string = 0): string {
  const email = typeof userIndex === 'string' ? userIndex : MFA_DEMO_USERS[userIndex]!;
  return gateway.sandbox.identity.users.byEmail(email)!.sub;
}

export interface GraphQLResponse<T> {
  status: number;
  data?: T | null;
  errors?: Array<{ message: string; path?: Array<string | number>; extensions?: Record<string, unknown> }>;
}

export async function execute<T, V>(
  gateway: TestGateway,
  browser: Browser,
  document: TypedDocumentNode<T, V>,
  variables?: V,
): Promise<GraphQLResponse<T>> {
  const response = await browser.request(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: print(document), variables }),
  });
  return { status: response.status, ...(JSON.parse(response.text) as Omit<GraphQLResponse<T>, 'status'>) };
}
