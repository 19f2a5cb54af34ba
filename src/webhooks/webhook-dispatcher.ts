import type { Clock } from '@open-finance-gateway/common/clock';
import { sha256Hex } from '@open-finance-gateway/common/ids';
import type { Logger } from '@open-finance-gateway/common/logger';
import { isKnownWebhook } from '@open-finance-gateway/common/webhook-events';
import type { EventLog, UserEvent } from '../event-log/event-log.js';
import { currentTraceparent } from '../lib/tracing.js';
import type { PlatformReads } from '../user-data/kept-platform.js';
import { judgedByContent, type WebhookChanges, type WebhookOutcome } from '../user-data/webhook-changes.js';
import type { DeadLetterStore } from './dead-letter-store.js';
import { deadLetter } from './dead-lettering.js';
import { runClaimed, type InProgress } from './delivery-claim.js';
import type { DeliveryLedger } from './delivery-ledger.js';
import type { RoutingHandleStore } from './routing-handle-store.js';

export interface WebhookDispatcherOptions {
  eventLog: EventLog;
  handles: RoutingHandleStore;
  ledger: DeliveryLedger;
  deadLetters: DeadLetterStore;
  logger: Logger;
  clock: Clock;
  /** Told after each event is published. */
  onPublished?: (userId: string, type: string, code: string) => void;
  /** Ends the sessions holding a revoked token (and forgets the user when none is left). */
  onTokenRevoked(userId: string, token: string): Promise<void>;
  /**
   * What each webhook changes in the user-data store (before it is acknowledged), and what it
   * names re-read, to judge a webhook without its new state by its content.
   */
  changes: WebhookChanges;
  /** The user's platform reads for those re-reads; undefined when the user has no bank connection. */
  platformFor(userId: string): Promise<PlatformReads | undefined>;
  /** Told after a webhook changed the user-data store (for metrics: `<type>_<code>`). */
  onUserDataChanged?: (cause: string) => void;
}

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
   * Stores a verified body: its event for its user (published, or a duplicate of one stored
   * before), a dead letter when it cannot be understood, or nothing for an unknown type or user
   * (ignored). A body another request holds is InProgress: the route answers 503 with Retry-After.
   */
  dispatch(raw: Buffer, log: Logger): Promise<string | InProgress>;
  /**
   * Who the webhook is for, or why it is ignored. Only reads (the routing handle); the delivery
   * ledger's claim follows, in the user's key space.
   */
  route(body: Record<string, unknown>): Promise<RoutedWebhook | IgnoredWebhook>;
  /**
   * Publishes a routed webhook and applies its side effects (a cancelled type, a revoked token):
   * once per body ('duplicate' when it was stored before), or, `judged` by its content, unless
   * subscribers were already given what it names as it is now ('duplicate' too).
   */
  deliver(routed: RoutedWebhook, bodyHash: string, judged?: boolean): Promise<'published' | 'duplicate'>;
  /**
   * Applies the side effects of a webhook stored before, again: they are idempotent, and the
   * request that stored it may have failed before finishing them.
   */
  redo(routed: RoutedWebhook): Promise<void>;
}

/**
 * Turns a verified webhook into a user event, in one direction: parse, find the user, claim the
 * body in the delivery ledger (in the user's key space, next to the event log it ends in), then
 * publish, which stores the event and marks the body done in one step. Events are signals, not
 * state: subscriptions re-read the object by `item_id`, so late or out-of-order deliveries cannot
 * show stale data.
 */
export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  async function revokeToken({ userId, event }: RoutedWebhook): Promise<void> {
    if (event.type === 'TOKEN' && event.code === 'DELETE' && typeof event.payload.item_id === 'string')
      await options.onTokenRevoked(userId, event.payload.item_id);
  }
  // Before the event is stored: a failure leaves the body claimable (answered 503, retried), and
  // once the 200 goes out no instance can read what the webhook made stale.
  async function changeUserData({ userId, event }: RoutedWebhook, judged: boolean): Promise<WebhookOutcome> {
    const platform = judged ? await options.platformFor(userId) : undefined;
    const outcome = await options.changes.apply(userId, event.type, event.code, event.payload, platform);
    if (outcome.cause) options.onUserDataChanged?.(outcome.cause);
    return outcome;
  }
  const dispatcher: WebhookDispatcher = {
    async dispatch(raw, log) {
      const hash = sha256Hex(raw);
      const body = parseObject(raw);
      if (typeof body === 'string') return deadLetter(options, raw, hash, body, log);
      const routed = await dispatcher.route(body);
      if ('ignored' in routed) {
        // Nothing is stored or changed, so a redelivery is harmless: no claim needed.
        log.info(routed.fields, routed.ignored);
        return 'ignored';
      }
      const judged = judgedByContent(routed.event.type, routed.event.code, routed.event.payload);
      return runClaimed(
        options.ledger,
        { userId: routed.userId },
        hash,
        () => dispatcher.deliver(routed, hash, judged),
        () => dispatcher.redo(routed),
        judged,
      );
    },

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
      // The webhook's trace travels with the event, so its delivery to subscriptions joins it.
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

    // Order, for a retry after a partial failure: the cancellation and the user-data change are
    // recorded before the event is stored (and marked done), so a failure before that leaves the
    // body claimable and the retry redoes everything; the token's sessions end after the event is stored (subscriptions hear
    // accessRevoked before their socket closes), so a failure there is redone by `redo` when the
    // retry finds the body done. Every side effect is idempotent.
    async deliver(routed, bodyHash, judged = false) {
      const { userId } = routed;
      const { type, code } = routed.event;
      if (code === 'WEBHOOK_CANCELLED') await options.handles.markCancelled(userId, type);
      const change = await changeUserData(routed, judged);
      const event = change.sync ? { ...routed.event, sync: change.sync } : routed.event;
      const content = judged && change.marks ? { marks: change.marks } : undefined;
      const cursor = await options.eventLog.publishDelivery(userId, event, bodyHash, content);
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
      await changeUserData(routed, false);
      await revokeToken(routed);
    },
  };
  return dispatcher;
}

/** The body as a JSON object, or why it is not one. */
function parseObject(raw: Buffer): Record<string, unknown> | string {
  let body: unknown;
  try {
    // fatal: invalid UTF-8 is refused rather than silently replaced.
    body = JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(raw));
  } catch {
    return 'not valid JSON';
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'not a JSON object';
  return body as Record<string, unknown>;
}
