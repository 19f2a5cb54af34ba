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
}

/** Step 1: the platform. Starts the embedded sandbox when either upstream URL is unset. */
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
  };
}
