import { MeDocument } from '../__generated__/graphql.js';
import { recordTraffic } from './audit.js';
import type { Browser } from './browser.js';
import { appUserId, execute, signIn, type TestGateway } from './gateway.js';

/** POSTs a webhook to the gateway exactly as given: raw bytes, headers as listed (repeats allowed). */
export async function deliver(
  gateway: TestGateway,
  body: Buffer | string,
  headers: Array<[string, string]>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const requestHeaders = new Headers({ 'content-type': 'application/json' });
  for (const [name, value] of headers) requestHeaders.append(name, value);
  // fetch folds repeated headers into one comma-joined value; node:http keeps them apart only when
  // sent separately, so repeats go through a raw request instead.
  const repeated = new Set(headers.map(([name]) => name.toLowerCase())).size !== headers.length;
  const response = repeated
    ? await rawPost(`${gateway.url}/webhooks`, body, headers)
    : await fetch(`${gateway.url}/webhooks`, { method: 'POST', headers: requestHeaders, body });
  const text = await response.text();
  recordTraffic({ url: `${gateway.url}/webhooks`, status: response.status, headers: {}, body: text });
  return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
}

async function rawPost(url: string, body: Buffer | string, headers: Array<[string, string]>): Promise<Response> {
  const { request } = await import('node:http');
  const target = new URL(url);
  const payload = Buffer.from(body);
  return new Promise((resolve, reject) => {
    // An array value makes node:http send one header line per element.
    const grouped: Record<string, string[]> = { 'content-type': ['application/json'] };
    for (const [name, value] of headers) (grouped[name.toLowerCase()] ??= []).push(value);
    const req = request(
      { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: grouped },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: res.statusCode })));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Signs like the platform (current sandbox key) and returns the two headers. */
export function signedHeaders(gateway: TestGateway, body: Buffer | string, keyId?: number): Array<[string, string]> {
  const signed = gateway.sandbox.signingKeys.sign(Buffer.from(body), keyId);
  return [
    ['X-Service-Signature', signed.signature],
    ['X-Service-Signing-Key', String(signed.keyId)],
  ];
}

/**
 * The routing handle (`state`) the gateway registered for a user's webhooks, once it has
 * subscribed them for the app user `appUser` (whose connection is the platform user `userId`).
 */
export async function routingStateOf(gateway: TestGateway, userId: string, appUser: string): Promise<string> {
  await gateway.waitForEvent('webhooks-registered', (event) => event.userId === appUser);
  const hook = gateway.sandbox.webhookSubscriptions().find((subscription) => subscription.userId === userId);
  return hook!.state!;
}

/**
 * Signs a demo user in and waits until their webhook subscriptions exist at the platform.
 * `userId` is the platform's id of the connected user (the sandbox's world keys on it); `appUser`
 * is the app user (the provider's `sub`), which the gateway's events and stores key on.
 */
export async function signedInUser(
  gateway: TestGateway,
  userIndex = 0,
): Promise<{ browser: Browser; userId: string; appUser: string; state: string }> {
  const browser = await signIn(gateway, userIndex);
  const userId = (await execute(gateway, browser, MeDocument)).data!.me.id;
  const appUser = appUserId(gateway, userIndex);
  return { browser, userId, appUser, state: await routingStateOf(gateway, userId, appUser) };
}
