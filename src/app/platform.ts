import type { GatewayConfig } from '../config/config.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { createSandbox, type Sandbox, type SandboxOptions } from '../sandbox/sandbox.js';

/** Where the platform is and the app's credentials for it: the live one, or the embedded sandbox. */
export interface PlatformEndpoints {
  /** Started here when an upstream URL was left unset; stopped by the caller's undo list. */
  sandbox: Sandbox | undefined;
  core: { baseUrl: string; appToken: string; appSecret: string; authorizeUrl: string };
  enrichment: { baseUrl: string; apiKey: string };
  /** The app's identity provider: OIDC_* settings, or the sandbox's provider (`sandbox: true`). */
  identity: { issuer: string; clientId: string; clientSecret: string; scopes: string; sandbox: boolean };
}

/**
 * Step 1: the platform. Starts the embedded sandbox when either upstream URL is unset; its
 * identity provider signs app users in when OIDC_ISSUER is unset (sandbox only: the settings refuse
 * a live platform without OIDC_ISSUER).
 */
export async function startPlatform(
  config: GatewayConfig,
  sandboxOptions: Partial<Omit<SandboxOptions, 'logger' | 'headerPrefix'>> | undefined,
  logger: Logger,
  clock: Clock,
  undo: Array<() => unknown>,
): Promise<PlatformEndpoints> {
  const needsSandbox = config.core.baseUrl === undefined || config.enrichment.baseUrl === undefined;
  const sandbox = needsSandbox
    ? createSandbox({
        logger: logger.child({ component: 'sandbox' }),
        headerPrefix: config.headerPrefix,
        clock,
        webhookTimeScale: config.sandboxWebhookTimeScale,
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
        }
      : {
          issuer: sandbox!.identity.issuer,
          clientId: sandbox!.identity.clientId,
          clientSecret: sandbox!.identity.clientSecret,
          scopes: config.identity.scopes,
          sandbox: true,
        },
  };
}
