/**
 * A platform event addressed to one user, as webhooks deliver it. Plain and serialisable, so the
 * Redis implementation carries it unchanged; subscription resolvers turn it into GraphQL output.
 */
export interface UserEvent {
  /** `webhook_type`: TOKEN, ACCOUNT, TRANSACTION, INCOME, TRANSFER, PAYMENT. */
  type: string;
  /** `webhook_code`: UPDATE, RECEIVED, DELETE, WEBHOOK_CANCELLED, … */
  code: string;
  /** The webhook's type-specific fields, as sent (`item_id`, `status`, …). */
  payload: Record<string, unknown>;
  /** When the gateway accepted the webhook (ISO 8601). */
  receivedAt: string;
  /** The W3C trace context of the webhook's receipt, when tracing is on. */
  traceparent?: string;
  /**
   * The stretch of the user's ledger change log this event's change went to (`(from, to]` of the
   * ledger's epoch), which transaction sync subscriptions push; absent when it changed no ledger.
   */
  sync?: { epoch: string; from: number; to: number };
  /** Set on an event the gateway made itself: what a reconciliation with the platform found (a webhook that never arrived). */
  reconciled?: true;
}

/**
 * What subscribers were last given of one object, as digests (see ContentMark in user-data): an
 * event whose marks all equal the ones last published is not published again. A mark whose digest
 * is GONE_DIGEST (the object was removed) is not kept: what a user's subscribers were given holds
 * only objects still there, and at most SEEN_MAX_OBJECTS of them (past it, it starts again).
 * Forgetting costs one more publish of a change already announced, never a lost one.
 */
export interface SeenMark {
  key: string;
  digest: string;
}

/** The digest of an object that is no longer there. */
export const GONE_DIGEST = 'gone';

/**
 * Objects whose last content is kept per user, at most: past it, what was kept is forgotten at once.
 * 128 keeps the hash in Redis's compact encoding at its default `hash-max-listpack-entries` (about
 * 7 KiB a user at most).
 */
export const SEEN_MAX_OBJECTS = 128;

/** An event as the log holds it: with its position, which clients resume after. */
export interface LoggedEvent extends UserEvent {
  /** Opaque to clients; increases with every event of the user. */
  cursor: string;
}

/** The cursor is unknown, malformed, or older than the retention: the client must re-read state. */
export class CursorExpiredError extends Error {
  constructor() {
    super(
      'This cursor is unknown or older than the events kept; read the current state again and subscribe without it.',
    );
    this.name = 'CursorExpiredError';
  }
}

export interface SubscribeOptions {
  /**
   * Deliver the retained events after this cursor first, then live ones, with no gap or
   * duplicate. A cursor that cannot be resumed from ends the iteration with CursorExpiredError.
   */
  after?: string;
}

/** A user's events as they come; `started` settles once live delivery is in effect (or failed to start). */
export interface EventSubscription extends AsyncIterableIterator<LoggedEvent> {
  /** Resolves when every event published from now on will be delivered; rejects if that failed. */
  readonly started: Promise<void>;
}

/**
 * Where webhooks and subscriptions meet: one log of events per user. Channels are per user, so a
 * subscriber can only ever be handed its own user's events. `publish` resolves once the event is
 * stored (the webhook is answered 200 only then); subscribers on every instance receive it, and a
 * subscriber that was away resumes from its last cursor. In memory for one instance, or one Redis
 * Stream per user shared by all.
 */
export interface EventLog {
  publish(userId: string, event: UserEvent): Promise<string>;
  /**
   * Publishes a webhook's event once per body: the append and the delivery's "done" mark (see
   * DeliveryLedger) are one atomic step, and an append for a delivery already done stores nothing
   * and resolves undefined. So a write that timed out and ran late, after a retry stored the
   * event, cannot store it twice. With `content`, the webhook is judged by what subscribers would
   * receive instead (its body may repeat for a new change): it is stored unless every mark equals
   * the one last published (or always, when it changed a ledger: `event.sync`), and the marks are
   * kept with it in the same step.
   */
  publishDelivery(
    userId: string,
    event: UserEvent,
    bodyHash: string,
    content?: { marks: readonly SeenMark[] },
  ): Promise<string | undefined>;
  /**
   * Publishes an event judged by its content (a reconciliation's finding): not when every mark
   * equals what subscribers were last given (undefined), else stored with the marks, atomically.
   */
  publishChange(userId: string, event: UserEvent, marks: readonly SeenMark[]): Promise<string | undefined>;
  /** Throws CursorExpiredError for a cursor that cannot be resumed from. */
  checkCursor(userId: string, cursor: string): Promise<void>;
  /** The user's events from now (or after `options.after`), until the iterator is returned. */
  subscribe(userId: string, options?: SubscribeOptions): EventSubscription;
  /** Deletes the user's retained events (their data is being forgotten). */
  deleteUser(userId: string): Promise<void>;
  close(): Promise<void>;
}
