import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createSandbox } from '../../src/sandbox.js';
import { Browser } from '../../src/testing/index.js';
import { track } from '../support/leftovers.js';
import { sdkAgainstSandbox, signedIn } from '../support/sdk.js';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';

async function consentPageFor(extra: Record<string, string> = {}, appName?: string) {
  const sandbox = createSandbox({ logger: createLogger({ level: 'silent' }), headerPrefix: 'X-Service', appName });
  await sandbox.start();
  track(() => sandbox.stop());
  sandbox.registerRedirectUri(REDIRECT_URI);
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: sandbox.credentials.appToken,
    redirect_uri: REDIRECT_URI,
    scope: 'ENDURING_CONSENT',
    state: 's',
    ...extra,
  });
  return (await new Browser().request(`${sandbox.authorizeUrl}?${query}`)).text;
}

const offered = (page: string) => [...page.matchAll(/Connect as ([^<]+)</g)].map((match) => match[1]!.trim());

describe('the sandbox’s consent page', () => {
  it('offers only the bank customer the app names with the platform’s email parameter', async () => {
    const page = await consentPageFor({ email: 'aroha@demo.example' });
    expect(offered(page)).toEqual(['Aroha Ngata']);
    expect(page).not.toContain('pick the demo bank customer');
  });

  it('says why there is a choice when the app names no one, and which app user each customer goes with', async () => {
    const page = await consentPageFor();
    expect(offered(page)).toEqual(['Aroha Ngata', 'James Wilson']);
    expect(page).toContain('for the app user aroha@demo.example');
    expect(page).toContain('The\nsandbox has no such sign-in');
  });

  it('names the app that asks, by the name it is registered under (the gateway gives its APP_NAME)', async () => {
    const named = await consentPageFor({}, 'Kete');
    expect(named).toContain('<h1>Connect your accounts to Kete</h1>');
    expect(named).toContain('<strong data-app-name>Kete</strong> is asking');
    expect(await consentPageFor()).toContain('<strong data-app-name>Open Finance Demo</strong> is asking');
  });

  it('speaks plainly: no internal scope names, and not "embedded" (it also runs on its own)', async () => {
    const visible = (await consentPageFor()).replaceAll(/<input[^>]*>/g, '');
    expect(visible).not.toMatch(/ENDURING_CONSENT|embedded/);
    expect(visible).toContain('until you revoke its access');
  });
});

describe('a reconnection at the sandbox', () => {
  it('makes the accounts the platform had lost access to ACTIVE again, as the live platform does', async () => {
    const setup = await sdkAgainstSandbox();
    const inactive = () =>
      setup.sandbox
        .world()
        .accounts.filter((account) => account.sandboxUserId === aroha && account.status === 'INACTIVE');
    const aroha = setup.sandbox.world().users[0]!._id;
    const [account] = inactive();
    expect(account).toBeDefined();

    // The first consent changes nothing: the demo world's INACTIVE account stays so.
    await signedIn(setup);
    expect(inactive()).toEqual([account]);

    const token = await signedIn(setup); // the same user consents again
    expect(inactive()).toEqual([]);
    expect((await setup.akahu.accounts.get(token, account!._id)).status).toBe('ACTIVE');
  });
});
