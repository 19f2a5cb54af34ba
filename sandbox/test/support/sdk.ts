import { once } from 'node:events';
import { createServer } from 'node:http';
import { AkahuClient } from 'akahu';
import { expect } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createSandbox } from '../../src/sandbox.js';
import { approveConsent, Browser } from '../../src/testing/index.js';
import { track } from './leftovers.js';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/**
 * The sandbox driven by the platform's own JavaScript SDK (`akahu@2`), the way an app team that
 * already uses it would: everything the SDK does that the live platform serves must work, with the
 * shapes its types declare. The sandbox signs webhooks with `X-Service`; the SDK sends `X-Akahu-Id`.
 */
export async function sdkAgainstSandbox(options: { webhookUrl?: string; webhookTimeScale?: number } = {}) {
  const sandbox = createSandbox({
    logger: createLogger({ level: 'silent' }),
    headerPrefix: 'X-Akahu',
    recordRequests: true,
    paymentSettleMs: 30,
    webhookUrl: options.webhookUrl,
    webhookTimeScale: options.webhookTimeScale,
  });
  await sandbox.start();
  track(() => sandbox.stop());
  sandbox.registerRedirectUri(REDIRECT_URI);
  const core = new URL(sandbox.coreUrl);
  const akahu = new AkahuClient({
    appToken: sandbox.credentials.appToken,
    appSecret: sandbox.credentials.appSecret,
    protocol: 'http',
    host: core.hostname,
    port: Number(core.port),
  });
  return { sandbox, akahu, core };
}

/** The SDK's authorization URL (default path: the origin's root), consent, and the code. */
export async function authorize(
  { akahu, core }: Awaited<ReturnType<typeof sdkAgainstSandbox>>,
  scope?: string,
  userIndex = 0,
): Promise<string> {
  const url = akahu.auth.buildAuthorizationUrl({
    protocol: 'http',
    host: core.hostname,
    port: Number(core.port),
    redirect_uri: REDIRECT_URI,
    state: 'sdk-state',
    ...(scope ? { scope } : {}),
  });
  expect(new URL(url).pathname).toBe('/');
  const back = await approveConsent(new Browser(), url, { userIndex });
  expect(back.searchParams.get('state')).toBe('sdk-state');
  return back.searchParams.get('code')!;
}

export async function signedIn(setup: Awaited<ReturnType<typeof sdkAgainstSandbox>>, userIndex = 0): Promise<string> {
  const grant = await setup.akahu.auth.exchange(await authorize(setup, undefined, userIndex), REDIRECT_URI);
  return grant.access_token;
}

export type SdkSetup = Awaited<ReturnType<typeof sdkAgainstSandbox>>;

/** An app's webhook endpoint: records every delivery and answers `status` (a number, or chosen per body). */
export async function webhookReceiver(status: number | ((body: string) => number) = 200) {
  const received: Array<{ headers: Record<string, string | string[] | undefined>; body: string }> = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.writeHead(typeof status === 'number' ? status : status(body)).end();
    });
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  track(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`, received };
}
