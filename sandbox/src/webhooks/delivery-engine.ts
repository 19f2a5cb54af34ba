import type { Clock } from '@open-finance-gateway/common/clock';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { WebhookCode, WebhookPayloads, WebhookType } from '@open-finance-gateway/common/webhook-events';
import { sandboxId } from '../data/sandbox-ids.js';
import type { SigningKeys } from './signing-keys.js';
import type { WebhookSubscription } from './subscription-routes.js';

export interface WebhookEventRecord {
  _id: string;
  _hook: string;
  status: 'PENDING' | 'SENT' | 'RETRY' | 'FAILED';
  payload: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  last_failed_at?: string;
  attempts: number;
}

export interface DeliveryEngineOptions {
  keys: SigningKeys;
  headerPrefix: string;
  subscriptions: WebhookSubscription[];
  clock: Clock;
  logger: Logger;
  /** The app's registered webhook URL (the operator registers it on the live platform). */
  url: () => string | undefined;
  /**
   * Divides every interval, so demos and tests see a day of retries in seconds.
   * @default 1 (real time: hourly retries for three days)
   */
  timeScale?: number;
  /** @default 5000, as the specification says; not scaled. */
  timeoutMs?: number;
}

const HOUR = 3_600_000;
const RETRY_INTERVAL_MS = HOUR;
const RETRY_HORIZON_MS = 3 * 24 * HOUR;
/** Failing for events spread over this long disables the webhook URL. */
const DISABLE_AFTER_MS = 2 * 24 * HOUR;

/**
 * Delivers webhooks as the specification's lifecycle says: a signed POST; delivered on HTTP 200
 * within 5 seconds; otherwise retried about hourly for up to three days; stopped when the
 * subscription is deleted; the URL disabled after repeated failures over several days.
 */
export class DeliveryEngine {
  readonly events: WebhookEventRecord[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private firstFailureAt: number | undefined;
  private disabled = false;
  private held: Array<() => void> | undefined;
  private readonly listeners = new Set<(record: WebhookEventRecord) => void>();

  constructor(private readonly options: DeliveryEngineOptions) {}

  get isDisabled(): boolean {
    return this.disabled;
  }

  /** Sends one event to every subscription of `userId` for `type`. */
  emit<T extends WebhookType>(userId: string, type: T, code: WebhookCode<T>, fields: WebhookPayloads[T] = {}): void {
    for (const hook of this.options.subscriptions.filter(
      (s) => s.userId === userId && s.type === type && !s.cancelled,
    )) {
      const now = new Date(this.options.clock()).toISOString();
      const payload = {
        webhook_type: type,
        webhook_code: code,
        ...(hook.state !== undefined ? { state: hook.state } : {}),
        ...fields,
      };
      const record: WebhookEventRecord = {
        _id: sandboxId('webhook_event', `${hook._id}:${this.events.length}:${now}`),
        _hook: hook._id,
        status: 'PENDING',
        payload,
        created_at: now,
        updated_at: now,
        attempts: 0,
      };
      this.events.push(record);
      const send = () => void this.attempt(record, hook);
      if (this.held) this.held.push(send);
      else send();
    }
  }

  /** Collects events emitted inside `work` and sends them in reverse order: delivery order is not guaranteed. */
  deliverOutOfOrder(work: () => void): void {
    this.held = [];
    try {
      work();
    } finally {
      const queued = this.held;
      this.held = undefined;
      for (const send of queued.reverse()) send();
    }
  }

  /** Re-enables a disabled URL (as the operator would once the app is fixed). */
  enable(): void {
    this.disabled = false;
    this.firstFailureAt = undefined;
  }

  /** Called after every status change of any event (tests and demos wait on this, not on time). */
  onChange(listener: (record: WebhookEventRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the first event record, now or later, that `match` accepts. */
  waitFor(match: (record: WebhookEventRecord) => boolean): Promise<WebhookEventRecord> {
    const existing = this.events.find(match);
    if (existing) return Promise.resolve(existing);
    return new Promise((resolve) => {
      const off = this.onChange((record) => {
        if (match(record)) {
          off();
          resolve(record);
        }
      });
    });
  }

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private async attempt(record: WebhookEventRecord, hook: WebhookSubscription): Promise<void> {
    const url = this.options.url();
    if (!this.options.subscriptions.includes(hook)) return this.finish(record, 'FAILED'); // deleted: stopped
    if (this.disabled || !url) return this.finish(record, 'FAILED');
    record.attempts += 1;
    const body = Buffer.from(JSON.stringify(record.payload));
    const { keyId, signature } = this.options.keys.sign(body);
    let delivered = false;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [`${this.options.headerPrefix}-Signature`]: signature,
          [`${this.options.headerPrefix}-Signing-Key`]: String(keyId),
        },
        body,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 5_000),
      });
      await response.arrayBuffer();
      delivered = response.status === 200;
    } catch {
      delivered = false;
    }
    const now = this.options.clock();
    if (delivered) {
      hook.last_called_at = new Date(now).toISOString();
      this.firstFailureAt = undefined;
      return this.finish(record, 'SENT');
    }
    record.last_failed_at = new Date(now).toISOString();
    this.firstFailureAt ??= now;
    // Every interval follows the time scale, so a scaled demo also gives up and disables on its scale.
    const scale = this.options.timeScale ?? 1;
    if ((now - this.firstFailureAt) * scale >= DISABLE_AFTER_MS) {
      this.disabled = true;
      this.options.logger.warn({ url }, 'sandbox disabled the webhook URL after repeated failures');
    }
    if ((now - Date.parse(record.created_at)) * scale >= RETRY_HORIZON_MS || this.disabled)
      return this.finish(record, 'FAILED');
    this.finish(record, 'RETRY');
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        void this.attempt(record, hook);
      },
      RETRY_INTERVAL_MS / (this.options.timeScale ?? 1),
    );
    timer.unref();
    this.timers.add(timer);
  }

  private finish(record: WebhookEventRecord, status: WebhookEventRecord['status']): void {
    record.status = status;
    record.updated_at = new Date(this.options.clock()).toISOString();
    this.options.logger.debug(
      {
        event: record._id,
        type: record.payload.webhook_type,
        code: record.payload.webhook_code,
        status,
        attempts: record.attempts,
      },
      'sandbox webhook delivery',
    );
    for (const listener of this.listeners) listener(record);
  }
}
