/**
 * A platform event addressed to one user, as webhooks deliver it. Plain and serialisable, so a
 * Redis-backed pubsub can carry it unchanged; subscription resolvers turn it into GraphQL output.
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
}

/**
 * Where webhooks and subscriptions meet. Channels are per user, so a subscriber can only ever be
 * handed its own user's events. This interface is all resolvers and the webhook receiver see: an
 * implementation over Redis (prefixed channels, SUBSCRIBE awaited before acknowledging) can
 * replace the in-process one without touching either.
 */
export interface PubSub {
  publish(userId: string, event: UserEvent): Promise<void>;
  /** Events for `userId` from now on, until the iterator is returned or `signal` aborts. */
  subscribe(userId: string, signal?: AbortSignal): AsyncIterableIterator<UserEvent>;
  close(): Promise<void>;
}
