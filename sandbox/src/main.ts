import { createHash } from 'node:crypto';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createSandbox } from './sandbox.js';
import { readStandaloneSettings, StandaloneSettingsError, type StandaloneSettings } from './standalone-settings.js';

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
async function main(settings: StandaloneSettings): Promise<void> {
  const seed = settings.SANDBOX_SEED;
  const logger = createLogger({ level: settings.LOG_LEVEL, service: 'platform-sandbox' });
  const redirectUris = settings.SANDBOX_REDIRECT_URIS;
  const sandbox = createSandbox({
    logger,
    headerPrefix: settings.PLATFORM_HEADER_PREFIX,
    host: settings.SANDBOX_HOST,
    corePort: settings.SANDBOX_CORE_PORT,
    enrichmentPort: settings.SANDBOX_ENRICHMENT_PORT,
    credentials: {
      appToken: settings.SANDBOX_APP_TOKEN ?? `app_token_${seeded(seed, 'app-token', 24)}`,
      appSecret: settings.SANDBOX_APP_SECRET ?? seeded(seed, 'app-secret', 32),
      enrichmentKey: settings.SANDBOX_ENRICHMENT_KEY ?? `genie_token_${seeded(seed, 'enrichment-key', 24)}`,
    },
    redirectUris,
    webhookUrl: settings.SANDBOX_WEBHOOK_URL,
    webhookTimeScale: settings.SANDBOX_WEBHOOK_TIME_SCALE,
    identityPort: settings.SANDBOX_IDENTITY_PORT,
    identitySeed: seed,
    identityIssuer: settings.SANDBOX_IDENTITY_ISSUER,
    appName: settings.SANDBOX_APP_NAME,
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
      // The gateway's default is the same: only another prefix needs saying.
      ...(settings.PLATFORM_HEADER_PREFIX === 'X-Service'
        ? []
        : [`  PLATFORM_HEADER_PREFIX=${settings.PLATFORM_HEADER_PREFIX}`]),
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

/** A bad setting stops the start with one line naming every bad key, and exit code 78 (EX_CONFIG), as the gateway. */
function settingsOrExit(): StandaloneSettings {
  try {
    return readStandaloneSettings(process.env);
  } catch (error) {
    if (!(error instanceof StandaloneSettingsError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(78);
  }
}

main(settingsOrExit()).catch((error: unknown) => {
  process.stderr.write(`sandbox failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
