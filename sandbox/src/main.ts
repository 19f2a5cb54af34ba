import { createHash } from 'node:crypto';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createSandbox } from './sandbox.js';

/**
 * Credentials derived from SANDBOX_SEED: the same on every start (a gateway pointed at this
 * sandbox keeps working across its restarts), different for another seed. They unlock nothing
 * but this sandbox.
 */
function seeded(seed: string, purpose: string, length: number): string {
  return createHash('sha256').update(`${seed}:${purpose}`).digest('base64url').slice(0, length);
}

/**
 * Runs the platform sandbox on its own, for pointing a gateway (or anything else) at it over
 * fixed ports. `npm start` does not need this: it embeds the sandbox.
 */
async function main(): Promise<void> {
  const env = process.env;
  const seed = env.SANDBOX_SEED ?? 'open-finance-sandbox';
  const logger = createLogger({ level: env.LOG_LEVEL ?? 'info', service: 'platform-sandbox' });
  const redirectUris = (env.SANDBOX_REDIRECT_URIS ?? 'http://localhost:4000/auth/callback')
    .split(',')
    .map((uri) => uri.trim());
  const sandbox = createSandbox({
    logger,
    headerPrefix: env.PLATFORM_HEADER_PREFIX ?? 'X-Service',
    host: env.SANDBOX_HOST ?? '127.0.0.1',
    corePort: Number(env.SANDBOX_CORE_PORT ?? 4010),
    enrichmentPort: Number(env.SANDBOX_ENRICHMENT_PORT ?? 4011),
    credentials: {
      appToken: env.SANDBOX_APP_TOKEN ?? `app_token_${seeded(seed, 'app-token', 24)}`,
      appSecret: env.SANDBOX_APP_SECRET ?? seeded(seed, 'app-secret', 32),
      enrichmentKey: env.SANDBOX_ENRICHMENT_KEY ?? `genie_token_${seeded(seed, 'enrichment-key', 24)}`,
    },
    redirectUris,
    webhookUrl: env.SANDBOX_WEBHOOK_URL ?? 'http://localhost:4000/webhooks',
    webhookTimeScale: Number(env.SANDBOX_WEBHOOK_TIME_SCALE ?? 120),
    identityPort: Number(env.SANDBOX_IDENTITY_PORT ?? 4012),
    identitySeed: seed,
    identityIssuer: env.SANDBOX_IDENTITY_ISSUER,
  });
  await sandbox.start();
  // The gateways whose platform callbacks are registered sign their users in here too.
  for (const uri of redirectUris) sandbox.identity.registerRedirectUri(`${new URL(uri).origin}/auth/oidc/callback`);
  // The sandbox's credentials are throwaway values that unlock nothing real, so printing them is
  // what makes the standalone mode usable.
  process.stdout.write(
    [
      '',
      'Platform sandbox running. Point a gateway at it with:',
      `  CORE_API_URL=${sandbox.coreUrl}`,
      `  ENRICHMENT_API_URL=${sandbox.enrichmentUrl}`,
      `  OAUTH_AUTHORIZE_URL=${sandbox.authorizeUrl}`,
      `  APP_TOKEN=${sandbox.credentials.appToken}`,
      `  APP_SECRET=${sandbox.credentials.appSecret}`,
      `  ENRICHMENT_API_KEY=${sandbox.credentials.enrichmentKey}`,
      // A gateway with real upstream URLs requires its own session secret; this one is for trying the sandbox only.
      `  SESSION_SECRET=${seeded(seed, 'session-secret', 43)}`,
      `  OIDC_ISSUER=${sandbox.identity.issuer}`,
      `  OIDC_CLIENT_ID=${sandbox.identity.clientId}`,
      `  OIDC_CLIENT_SECRET=${sandbox.identity.clientSecret}`,
      // Development against a sandbox: GraphiQL and introspection on, as on the embedded sandbox.
      '  GRAPHQL_INTROSPECTION=true',
      ...(env.PLATFORM_HEADER_PREFIX ? [`  PLATFORM_HEADER_PREFIX=${env.PLATFORM_HEADER_PREFIX}`] : []),
      '',
      `Console (the demo world, webhook deliveries, payments and every control): ${sandbox.consoleUrl}`,
      `App identity provider (OpenID Connect, multi-factor demo users): ${sandbox.identity.issuer}`,
      '',
    ].join('\n'),
  );
  const stop = () => void sandbox.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

void main();
