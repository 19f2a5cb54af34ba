/**
 * The platform's webhook table (the specification's "Webhooks" section), in one place for both
 * packages: the sandbox sends what it lists, and the gateway's receiver, subscriber and
 * subscription resolvers accept what it lists. Adding a webhook type is one entry here plus its
 * payload type below; the compiler then points at every place in either package that must handle
 * it (see docs/contributing/add-a-webhook-type.md).
 */
export const WEBHOOK_EVENTS = {
  TOKEN: { codes: ['DELETE'], coalesce: 'never' },
  ACCOUNT: { codes: ['CREATE', 'UPDATE', 'DELETE', 'WEBHOOK_CANCELLED'], coalesce: 'updates' },
  TRANSACTION: { codes: ['INITIAL_UPDATE', 'DEFAULT_UPDATE', 'DELETE', 'WEBHOOK_CANCELLED'], coalesce: 'never' },
  INCOME: { codes: ['CREATE', 'UPDATE', 'DELETE', 'WEBHOOK_CANCELLED'], coalesce: 'never' },
  TRANSFER: { codes: ['UPDATE', 'RECEIVED', 'WEBHOOK_CANCELLED'], coalesce: 'by-item' },
  PAYMENT: { codes: ['UPDATE', 'RECEIVED', 'WEBHOOK_CANCELLED'], coalesce: 'by-item' },
} as const satisfies Record<string, { codes: readonly string[]; coalesce: Coalescing }>;

/**
 * Which pending events a newer one may replace in a busy subscriber's queue (they are signals to
 * re-read the object): `by-item`, any event about the same item; `updates`, only UPDATEs of the
 * same item; `never`, each event is a fact of its own (ids that changed, creations, deletions).
 */
export type Coalescing = 'by-item' | 'updates' | 'never';

export type WebhookType = keyof typeof WEBHOOK_EVENTS;
export type WebhookCode<T extends WebhookType = WebhookType> = (typeof WEBHOOK_EVENTS)[T]['codes'][number];

/** Every type, in the table's order: the types the gateway subscribes each user to. */
export const WEBHOOK_TYPES = Object.keys(WEBHOOK_EVENTS) as WebhookType[];

/**
 * Lookups by sender input go through a Map: `webhook_type` comes from outside, and `constructor`
 * or `__proto__` must not find anything on a prototype.
 */
const CODES: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  WEBHOOK_TYPES.map((type) => [type, new Set<string>(WEBHOOK_EVENTS[type].codes)]),
);

/** Whether the platform's table has this type and code (anything else is acknowledged and ignored). */
export function isKnownWebhook(type: unknown, code: unknown): type is WebhookType {
  return typeof type === 'string' && typeof code === 'string' && CODES.get(type)?.has(code) === true;
}

export function isWebhookType(type: unknown): type is WebhookType {
  return typeof type === 'string' && CODES.has(type);
}

export function coalescingOf(type: string): Coalescing {
  return isWebhookType(type) ? WEBHOOK_EVENTS[type].coalesce : 'never';
}

/** The fields each type carries besides the envelope (`webhook_type`, `webhook_code`, `state`). */
export interface WebhookPayloads {
  TOKEN: { item_id?: string };
  ACCOUNT: { item_id?: string; updated_fields?: string[] };
  TRANSACTION: {
    item_id?: string;
    new_transactions?: number;
    new_transaction_ids?: string[];
    removed_transactions?: string[];
  };
  INCOME: {
    item_id?: string;
    new_transactions?: number;
    new_transaction_ids?: string[];
    removed_transactions?: number;
    removed_transaction_ids?: string[];
  };
  TRANSFER: { item_id?: string; status?: string; status_text?: string; received_at?: string };
  PAYMENT: { item_id?: string; status?: string; status_code?: string; status_text?: string; received_at?: string };
}

/** A webhook as a discriminated union on its type: `payload` has that type's fields. */
export type WebhookEvent = {
  [T in WebhookType]: { type: T; code: WebhookCode<T>; payload: WebhookPayloads[T] };
}[WebhookType];
