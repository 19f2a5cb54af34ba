import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { CoreClient } from '../upstream/core-client.js';
import type { RoutingHandleStore } from './routing-handle-store.js';

export interface WebhookRegistrarOptions {
  core: CoreClient;
  handles: RoutingHandleStore;
  types: readonly string[];
  logger: Logger;
  /** Attempts per type before giving up. @default 3 */
  attempts?: number;
  /** First retry delay, doubled each time. @default 500 */
  retryDelayMs?: number;
}

/**
 * Registers each configured webhook type for a freshly signed-in user at the platform (what the
 * platform calls subscribing the user to a webhook), as the platform asks: right after the token
 * exchange. The user's routing handle is retried like each type (a store
 * that did not answer in time must not leave the user with no live events at all). Each type is
 * retried on its own; a type that still fails is reported (logged at error with the reason) and
 * does not affect the others or the sign-in.
 */
export function createWebhookRegistrar(options: WebhookRegistrarOptions) {
  const attempts = options.attempts ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 500;
  return async (
    userId: string,
    platformToken: string,
  ): Promise<{ registered: string[]; failed: string[]; alreadyRegistered: string[] }> => {
    const state = await withRetries(() => options.handles.handleFor(userId), attempts, retryDelayMs).catch(
      (error: unknown) => {
        options.logger.error(
          { userId, attempts, reason: error instanceof Error ? error.message : String(error) },
          'webhook registration failed: no routing handle, so this user will get no live events',
        );
        return undefined;
      },
    );
    if (state === undefined) return { registered: [], failed: [...options.types], alreadyRegistered: [] };
    const registered: string[] = [];
    const failed: string[] = [];
    // Each sign-in would otherwise add another set at the platform. Where the listing does not
    // say the type (older platform versions), everything is registered again; duplicates are
    // then caught by the receiver's body-hash deduplication.
    const existing = await options.core.listWebhooks(platformToken).catch((error: unknown) => {
      options.logger.warn(
        { userId, reason: error instanceof Error ? error.message : String(error) },
        'could not list webhook registrations; registering all types',
      );
      return [];
    });
    const present = new Set(existing.filter((hook) => hook.state === state && hook.type).map((hook) => hook.type!));
    await Promise.all(
      options.types
        .filter((type) => !present.has(type))
        .map(async (type) => {
          try {
            await withRetries(() => options.core.registerWebhook(platformToken, type, state), attempts, retryDelayMs);
            registered.push(type);
          } catch (error) {
            failed.push(type);
            options.logger.error(
              { userId, webhookType: type, attempts, reason: error instanceof Error ? error.message : String(error) },
              'webhook registration failed: this user will not get these live events',
            );
          }
        }),
    );
    options.logger.info(
      { userId, registered, failed, alreadyRegistered: [...present] },
      'webhook registrations set up',
    );
    return { registered, failed, alreadyRegistered: [...present] };
  };
}

/** `work` up to `attempts` times, waiting `firstDelayMs` (doubled each time, with jitter) in between. */
async function withRetries<T>(work: () => Promise<T>, attempts: number, firstDelayMs: number): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts) throw error;
      await delay(firstDelayMs * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5));
    }
  }
}
