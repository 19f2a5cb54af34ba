import { randomBytes } from 'node:crypto';
import { Browser } from './browser.js';
import {
  approveConsent,
  MFA_DEMO_USERS,
  signInToApp,
  startConnection,
  startGateway,
  type TestGateway,
} from './gateway.js';
import { behindLoadBalancer, startInstance, type Instance } from './instances.js';
import { sessionCookie } from './session-cookie.js';

/**
 * A deployment for fault tests: a gateway in this process whose embedded sandbox plays the
 * platform (identity, core API, the signing-key route), and gateway processes on a Redis the test
 * owns, reached only over HTTP. The platform is used only through that gateway's app object.
 */
export type Platform = TestGateway['sandbox'];

export interface FaultUser {
  index: number;
  /** The platform's id of the connected user. */
  userId: string;
  /** The routing handle the gateway registered for this user's webhooks (`state`). */
  state: string;
  /** The session cookie a browser of this user sends. */
  cookie: string;
}

export interface FaultDeployment {
  platform: Platform;
  publicUrl: string;
  env: Record<string, string>;
  instances: Instance[];
  users: FaultUser[];
  /** Starts one more instance of the same deployment. */
  addInstance(name: string): Promise<Instance>;
}

export interface FaultDeploymentOptions {
  /** REDIS_* settings of the topology under test. */
  redis: Record<string, string>;
  instances: number;
  /** How many demo users sign in and connect a bank (at most three). */
  users: number;
  commandTimeoutMs: number;
}

export async function startFaultDeployment(options: FaultDeploymentOptions): Promise<FaultDeployment> {
  const host = await startGateway();
  const platform = host.sandbox;
  const { publicUrl, env } = await behindLoadBalancer(platform, {
    ...options.redis,
    REDIS_KEY_PREFIX: `ofg-faults-${randomBytes(3).toString('hex')}:`,
    REDIS_COMMAND_TIMEOUT_MS: String(options.commandTimeoutMs),
    LOG_LEVEL: 'info',
  });
  const instances = await Promise.all(
    Array.from({ length: options.instances }, (_, n) => startInstance(String.fromCharCode(65 + n), env)),
  );
  const users: FaultUser[] = [];
  for (let index = 0; index < options.users; index += 1)
    users.push(await connectUser(platform, publicUrl, instances[0]!, index));
  return {
    platform,
    publicUrl,
    env,
    instances,
    users,
    addInstance: (name) => startInstance(name, env),
  };
}

/** Signs demo user `index` in and connects their bank through `via`, as a browser would. */
async function connectUser(platform: Platform, publicUrl: string, via: Instance, index: number): Promise<FaultUser> {
  const email = MFA_DEMO_USERS[index]!;
  const publicHost = new URL(publicUrl).host;
  const browser = new Browser().routeThrough((url) =>
    url.host === publicHost ? new URL(`${url.pathname}${url.search}`, via.url) : url,
  );
  const signedIn = await signInToApp(browser, platform, publicUrl, email);
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}: ${signedIn.text}`);
  const appUser = platform.identity.users.byEmail(email)!.sub;
  const subscribed = via.events.waitFor('webhooks-registered', (event) => event.userId === appUser);
  const login = await startConnection(browser, publicUrl);
  if (login.status !== 302 || !login.location) throw new Error(`connect answered ${login.status}`);
  const callback = await approveConsent(browser, login.location, { userIndex: index });
  const landed = await browser.request(callback.href);
  if (landed.status !== 303) throw new Error(`callback answered ${landed.status}: ${landed.text}`);
  const me = await browser.request(`${publicUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ me { id } }' }),
  });
  const userId = (JSON.parse(me.text) as { data: { me: { id: string } } }).data.me.id;
  await subscribed;
  // The sandbox's consent page may map two app users to one platform user: the newest handle is this one's.
  const state = platform
    .webhookSubscriptions()
    .filter((hook) => hook.userId === userId)
    .at(-1)!.state!;
  const cookie = sessionCookie(browser, publicUrl);
  return { index, userId, state, cookie };
}
