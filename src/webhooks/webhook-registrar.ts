import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { CoreClient } from '../upstream/core-client.js';
import type { RoutingHandleStore } from './routing-handle-store.js';

export interface WebhookSubscriberOptions {
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
 * Subscribes a freshly signed-in user to each configured webhook type, as the platform asks
 * (right after the token exchange). The user's routing handle is retried like each type (a store
 * that did not answer in time must not leave the user with no live events at all). Each type is
 * retried on its own; a type that still fails is reported (logged at error with the reason) and
 * does not affect the others or the sign-in.
 */
export function createWebhookSubscriber(options: WebhookSubscriberOptions) {
  const attempts = options.attempts ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 500;
  return async (
    userId: string,
    accessToken: string,
  ): Promise<{ subscribed: string[]; failed: string[]; alreadySubscribed: string[] }> => {
    const state = await withRetries(() => options.handles.handleFor(userId), attempts, retryDelayMs).catch(
      (error: unknown) => {
        options.logger.error(
          { userId, attempts, reason: error instanceof Error ? error.message : String(error) },
          'webhook subscription failed: no routing handle, so this user will get no live events',
        );
        return undefined;
      },
    );
    if (state === undefined) return { subscribed: [], failed: [...options.types], alreadySubscribed: [] };
    const subscribed: string[] = [];
    const failed: string[] = [];
    // Each sign-in would otherwise add another set at the platform. Where the listing does not
    // say the type (older platform versions), everything is subscribed again; duplicates are
    // then caught by the receiver's body-hash deduplication.
    const existing = await options.core.listWebhooks(accessToken).catch((error: unknown) => {
      options.logger.warn(
        { userId, reason: error instanceof Error ? error.message : String(error) },
        'could not list webhook subscriptions; subscribing all types',
      );
      return [];
    });
    const present = new Set(existing.filter((hook) => hook.state === state && hook.type).map((hook) => hook.type!));
    await Promise.all(
      options.types
        .filter((type) => !present.has(type))
        .map(async (type) => {
          try {
            await withRetries(() => options.core.subscribeWebhook(accessToken, type, state), attempts, retryDelayMs);
            subscribed.push(type);
          } catch (error) {
            failed.push(type);
            options.logger.error(
              { userId, webhookType: type, attempts, reason: error instanceof Error ? error.message : String(error) },
              'webhook subscription failed: this user will not get these live events',
            );
          }
        }),
    );
    options.logger.info(
      { userId, subscribed, failed, alreadySubscribed: [...present] },
      'webhook subscriptions set up',
    );
    return { subscribed, failed, alreadySubscribed: [...present] };
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
