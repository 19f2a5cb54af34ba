import { createHash, randomBytes } from 'node:crypto';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createSandbox, type Sandbox } from '@open-finance-gateway/sandbox';
import { Browser, signInAtProvider } from '@open-finance-gateway/sandbox/testing';
import {
  freePort,
  gatewayEnvFor,
  percentile,
  signIn,
  startGatewayProcess,
  type Measured,
} from './support/processes.js';

/**
 * `npm run bench:bearer`: the access-token path against the cookie path, side by side in one run.
 * The sandbox runs here; the gateway (`node dist/main.js`) in a process of its own, reporting its
 * CPU time. One app user is signed in both ways (a browser's cookie, and a native app's access
 * token from the sandbox provider's public client). Each round sends REQUESTS sequential requests
 * (one client) by each path, in alternating order, for two operations: `bankConnection` (answered
 * from the gateway's own state: the authentication is most of the work) and `accounts` (one
 * platform call). Reported per path: p50 latency and gateway CPU per request, min/median/max over
 * ROUNDS rounds, and bearer/cookie ratios. Goal: the bearer path within 10% of the cookie path.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1_000);
const OPERATIONS = {
  bankConnection: '{ bankConnection { connected } }',
  accounts: '{ accounts { id } }',
} as const;

/** A native app's sign-in (RFC 8252: PKCE, public client, loopback return) at the sandbox provider. */
async function nativeToken(sandbox: Sandbox, email: string): Promise<string> {
  const { issuer, nativeClientId } = sandbox.identity;
  const redirectUri = 'http://127.0.0.1:53682/callback';
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(`${issuer}/auth`);
  authorize.search = new URLSearchParams({
    client_id: nativeClientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: 'openid',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const back = await signInAtProvider(new Browser(), sandbox, authorize.href, email, redirectUri);
  const answer = await fetch(`${issuer}/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: redirectUri,
      client_id: nativeClientId,
      code_verifier: verifier,
    }),
  });
  return ((await answer.json()) as { access_token: string }).access_token;
}

async function post(gateway: Measured, headers: Record<string, string>, query: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as { errors?: unknown; data?: unknown };
  if (response.status !== 200 || body.errors || !body.data)
    throw new Error(`${response.status} ${JSON.stringify(body.errors ?? body).slice(0, 300)}`);
  return performance.now() - started;
}

/** One path's run: p50 latency (ms) and gateway CPU per request (µs). */
async function run(gateway: Measured, headers: Record<string, string>, query: string) {
  for (let i = 0; i < 50; i += 1) await post(gateway, headers, query); // warm
  const cpuBefore = (await gateway.measure()).cpuMicros;
  const latencies: number[] = [];
  for (let i = 0; i < REQUESTS; i += 1) latencies.push(await post(gateway, headers, query));
  const cpu = ((await gateway.measure()).cpuMicros - cpuBefore) / REQUESTS;
  return {
    p50: percentile(
      latencies.sort((a, b) => a - b),
      50,
    ),
    cpu,
  };
}

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { min: sorted[0]!, median: sorted[Math.floor(sorted.length / 2)]!, max: sorted.at(-1)! };
};
const show = (values: number[], digits: number) => {
  const { min, median, max } = stats(values);
  return `${median.toFixed(digits)} (${min.toFixed(digits)}–${max.toFixed(digits)})`;
};

async function main(): Promise<void> {
  const sandbox = createSandbox({ logger: createLogger({ level: 'silent' }), headerPrefix: 'X-Akahu' });
  await sandbox.start();
  // The public URL is the gateway's name (its resource id, the token's audience); the process
  // listens on a port of its own, and sign-in requests are sent there (signIn's `via`).
  const publicUrl = `http://localhost:${await freePort()}`;
  sandbox.registerRedirectUri(`${publicUrl}/auth/callback`);
  sandbox.identity.registerResource(publicUrl);
  const gateway = await startGatewayProcess({
    ...gatewayEnvFor(sandbox, publicUrl, randomBytes(32).toString('hex')),
    NATIVE_CLIENT_IDS: sandbox.identity.nativeClientId,
    ACCESS_TOKEN_AUDIENCE: publicUrl,
  });
  sandbox.setWebhookUrl(`${gateway.url}/webhooks`);
  try {
    const { cookie } = await signIn(publicUrl, gateway, sandbox);
    const token = await nativeToken(sandbox, 'aroha@demo.example');
    const paths = { cookie: { cookie }, bearer: { authorization: `Bearer ${token}` } };
    process.stdout.write(`bearer vs cookie: ${ROUNDS} rounds × ${REQUESTS} requests per path, one client\n`);
    for (const [name, query] of Object.entries(OPERATIONS)) {
      const results = {
        cookie: { p50: [] as number[], cpu: [] as number[] },
        bearer: { p50: [] as number[], cpu: [] as number[] },
      };
      for (let round = 0; round < ROUNDS; round += 1) {
        const order = round % 2 === 0 ? (['cookie', 'bearer'] as const) : (['bearer', 'cookie'] as const);
        for (const path of order) {
          const { p50, cpu } = await run(gateway, paths[path], query);
          results[path].p50.push(p50);
          results[path].cpu.push(cpu);
        }
      }
      const ratio = (key: 'p50' | 'cpu') => stats(results.bearer[key]).median / stats(results.cookie[key]).median;
      process.stdout.write(
        `\n${name}: median (min–max) over ${ROUNDS} rounds\n` +
          `  cookie  p50 ${show(results.cookie.p50, 3)} ms   CPU ${show(results.cookie.cpu, 0)} µs/request\n` +
          `  bearer  p50 ${show(results.bearer.p50, 3)} ms   CPU ${show(results.bearer.cpu, 0)} µs/request\n` +
          `  bearer/cookie: p50 ×${ratio('p50').toFixed(3)}, CPU ×${ratio('cpu').toFixed(3)} (goal: within ×1.10)\n`,
      );
    }
  } finally {
    await gateway.stop();
    await sandbox.stop();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
