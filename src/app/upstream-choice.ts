import type { Clock } from '@open-finance-gateway/common/clock';
import type { Logger } from '@open-finance-gateway/common/logger';
// The one place the gateway meets the sandbox package: its types here, the package itself only
// through the dynamic import below (a production install leaves it out).
import type { KeptDataProbe, Sandbox, SandboxOptions } from '@open-finance-gateway/sandbox';
import type { GatewayConfig } from '../config/config.js';

export type { KeptDataProbe, Sandbox, SandboxOptions };

/** The sandbox package's name, as installed in development (a devDependency) and absent in production. */
export const SANDBOX_PACKAGE = '@open-finance-gateway/sandbox';

/** What a gateway without a platform must be given: the settings that point it at a live one. */
export const PLATFORM_SETTINGS = [
  'CORE_API_URL',
  'ENRICHMENT_API_URL',
  'OAUTH_AUTHORIZE_URL',
  'APP_TOKEN',
  'APP_SECRET',
  'ENRICHMENT_API_KEY',
  'SESSION_SECRET',
  'OIDC_ISSUER',
  'OIDC_CLIENT_ID',
  'OIDC_CLIENT_SECRET',
];

export type SandboxModule = Pick<typeof import('@open-finance-gateway/sandbox'), 'createSandbox'>;

/** Loads the sandbox package; replaced in tests to act out an install without it. */
export const loadSandboxPackage = (): Promise<SandboxModule> => import('@open-finance-gateway/sandbox');

/**
 * The sandbox package, or one clear error when this install has none (`npm ci --omit=dev`, the
 * production image): the gateway then needs a live platform, and says which settings name it.
 */
async function loadSandbox(load: () => Promise<SandboxModule>): Promise<SandboxModule> {
  try {
    return await load();
  } catch (error) {
    const missing =
      (error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' &&
      String((error as Error).message).includes(SANDBOX_PACKAGE);
    if (!missing) throw error;
    throw new Error(
      `no platform is configured and the embedded sandbox is not installed (a production install leaves it out): set ${PLATFORM_SETTINGS.join(', ')}`,
    );
  }
}

/** Where the platform is and the app's credentials for it: the live one, or the embedded sandbox. */
export interface UpstreamEndpoints {
  /** Started here when an upstream URL was left unset; stopped by the caller's undo list. */
  sandbox: Sandbox | undefined;
  core: { baseUrl: string; appToken: string; appSecret: string; authorizeUrl: string };
  enrichment: { baseUrl: string; apiKey: string };
  /** The app's identity provider: OIDC_* settings, or the sandbox's provider (`sandbox: true`). */
  identity: {
    issuer: string;
    clientId: string;
    clientSecret: string;
    scopes: string;
    sandbox: boolean;
    /** Clients whose access tokens are accepted: NATIVE_CLIENT_IDS, or the sandbox provider's native client. */
    nativeClientIds: string[];
  };
}

/**
 * Step 1: the platform. Starts the embedded sandbox when either upstream URL is unset; its
 * identity provider signs app users in when OIDC_ISSUER is unset (sandbox only: the settings refuse
 * a live platform without OIDC_ISSUER).
 */
export async function chooseUpstream(
  config: GatewayConfig,
  sandboxOptions: Partial<Omit<SandboxOptions, 'logger' | 'headerPrefix'>> | undefined,
  logger: Logger,
  clock: Clock,
  undo: Array<() => unknown>,
  load: () => Promise<SandboxModule> = loadSandboxPackage,
): Promise<UpstreamEndpoints> {
  const needsSandbox = config.core.baseUrl === undefined || config.enrichment.baseUrl === undefined;
  const sandbox = needsSandbox
    ? (await loadSandbox(load)).createSandbox({
        logger: logger.child({ component: 'sandbox' }),
        headerPrefix: config.headerPrefix,
        clock,
        webhookTimeScale: config.sandboxWebhookTimeScale,
        // The app registered with the platform is this gateway's: its consent and sign-in pages name it.
        appName: config.consumerInfo.appName,
        ...sandboxOptions,
      })
    : undefined;
  await sandbox?.start();
  if (sandbox) undo.push(() => sandbox.stop());
  if (sandbox)
    logger.warn(
      { core: !config.core.baseUrl, enrichment: !config.enrichment.baseUrl },
      'using the embedded platform sandbox: no real platform is reached for these upstreams',
    );
  return {
    sandbox,
    core: config.core.baseUrl
      ? {
          baseUrl: config.core.baseUrl,
          appToken: config.core.appToken!,
          appSecret: config.core.appSecret!,
          authorizeUrl: config.core.oauthAuthorizeUrl!,
        }
      : {
          baseUrl: sandbox!.coreUrl,
          appToken: sandbox!.credentials.appToken,
          appSecret: sandbox!.credentials.appSecret,
          authorizeUrl: config.core.oauthAuthorizeUrl ?? sandbox!.authorizeUrl,
        },
    enrichment: config.enrichment.baseUrl
      ? { baseUrl: config.enrichment.baseUrl, apiKey: config.enrichment.apiKey! }
      : { baseUrl: sandbox!.enrichmentUrl, apiKey: sandbox!.credentials.enrichmentKey },
    identity: config.identity.issuer
      ? {
          issuer: config.identity.issuer,
          clientId: config.identity.clientId!,
          clientSecret: config.identity.clientSecret!,
          scopes: config.identity.scopes,
          sandbox: false,
          nativeClientIds: config.accessTokens.clientIds ?? [],
        }
      : {
          issuer: sandbox!.identity.issuer,
          clientId: sandbox!.identity.clientId,
          clientSecret: sandbox!.identity.clientSecret,
          scopes: config.identity.scopes,
          sandbox: true,
          nativeClientIds: config.accessTokens.clientIds ?? [sandbox!.identity.nativeClientId],
        },
  };
}
