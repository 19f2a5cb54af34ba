import type { Logger } from '@open-finance-gateway/common/logger';
import { isKnownWebhook } from '@open-finance-gateway/common/webhook-events';
import type { EventLog, UserEvent } from '../event-log/event-log.js';
import { currentTraceparent } from '../lib/tracing.js';
import type { RoutingHandleStore } from './routing-handle-store.js';

export interface WebhookDispatcherOptions {
  eventLog: EventLog;
  handles: RoutingHandleStore;
  logger: Logger;
  clock: () => number;
  /** Told after each event is published. */
  onPublished?: (userId: string, type: string, code: string) => void;
  /** Ends the sessions holding a revoked token (and forgets the user when none is left). */
  onTokenRevoked(userId: string, token: string): Promise<void>;
}

export type DispatchOutcome = 'published' | 'ignored' | 'duplicate';

/** A verified webhook, its user found: ready to publish. */
export interface RoutedWebhook {
  userId: string;
  event: UserEvent;
}

/** Why a verified webhook is acknowledged without publishing, with what to log. */
export interface IgnoredWebhook {
  ignored: string;
  fields: Record<string, unknown>;
}

export interface WebhookDispatcher {
  /**
   * Who the webhook is for, or why it is ignored. Only reads (the routing handle); the delivery
   * ledger's claim follows, in the user's key space.
   */
  route(body: Record<string, unknown>): Promise<RoutedWebhook | IgnoredWebhook>;
  /**
   * Publishes a routed webhook (once per body: 'duplicate' when it was stored before) and applies
   * its side effects (a cancelled type, a revoked token).
   */
  deliver(routed: RoutedWebhook, bodyHash: string): Promise<'published' | 'duplicate'>;
  /**
   * Applies the side effects of a webhook stored before, again: they are idempotent, and the
   * request that stored it may have failed before finishing them.
   */
  redo(routed: RoutedWebhook): Promise<void>;
}

/**
 * Turns a verified webhook into a user event. Events are signals, not state: subscribers re-read
 * the object by `item_id`, so late or out-of-order deliveries cannot show stale data.
 */
export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  async function revokeToken({ userId, event }: RoutedWebhook): Promise<void> {
    if (event.type === 'TOKEN' && event.code === 'DELETE' && typeof event.payload.item_id === 'string')
      await options.onTokenRevoked(userId, event.payload.item_id);
  }
  return {
    async route(body) {
      const { webhook_type: type, webhook_code: code, state, ...payload } = body;
      if (!isKnownWebhook(type, code)) {
        return {
          ignored: 'webhook of an unknown type or code: acknowledged and ignored',
          fields: { type: String(type).slice(0, 64), code: String(code).slice(0, 64) },
        };
      }
      const userId = typeof state === 'string' ? await options.handles.userFor(state) : undefined;
      // Checked against the table above: a known code of this type.
      const known = code as string;
      if (!userId)
        return {
          ignored: 'webhook for no known user (state unknown or already deleted): ignored',
          fields: { type, code: known },
        };
      // The webhook's trace travels with the event, so its delivery to subscribers joins it.
      const traceparent = currentTraceparent();
      return {
        userId,
        event: {
          type,
          code: known,
          payload,
          receivedAt: new Date(options.clock()).toISOString(),
          ...(traceparent ? { traceparent } : {}),
        },
      };
    },

    // Order, for a retry after a partial failure: the cancellation is recorded before the event is
    // stored (and marked done), so a failure before that leaves the body claimable and the retry
    // redoes everything; the token's sessions end after the event is stored (subscribers hear
    // accessRevoked before their socket closes), so a failure there is redone by `redo` when the
    // retry finds the body done. Every side effect is idempotent.
    async deliver(routed, bodyHash) {
      const { userId, event } = routed;
      const { type, code } = event;
      if (code === 'WEBHOOK_CANCELLED') await options.handles.markCancelled(userId, type);
      const cursor = await options.eventLog.publishDelivery(userId, event, bodyHash);
      await revokeToken(routed);
      if (cursor === undefined) return 'duplicate';
      // Debug: the access log already has a line per webhook; a second info line cost ~13% of ingest.
      options.logger.debug({ userId, type, code }, 'webhook republished');
      options.onPublished?.(userId, type, code);
      return 'published';
    },

    async redo(routed) {
      const { type, code } = routed.event;
      if (code === 'WEBHOOK_CANCELLED') await options.handles.markCancelled(routed.userId, type);
      await revokeToken(routed);
    },
  };
}
