import { createHash } from 'node:crypto';
import type { Clock } from '@open-finance-gateway/common/clock';
import { sendJson } from '@open-finance-gateway/common/http/respond';
import { platformError, type SandboxRequest } from '../sandbox-http.js';

const DAY_MS = 24 * 3_600_000;

interface StoredAnswer {
  fingerprint: string;
  status: number;
  body: unknown;
  at: number;
}

/**
 * The platform's `Idempotency-Key` rule: the first answer to a key (even an error) is kept for
 * 24 hours and replayed with `Idempotent-Replayed: true`; the same key with another request is 422.
 * Keys are per user, so two users cannot collide. A request without a key is simply run.
 */
export class IdempotencyBook {
  private readonly answers = new Map<string, StoredAnswer>();

  constructor(private readonly clock: Clock) {}

  /** Answers `request` from the book, or runs `execute` and keeps its answer under the key. */
  answer(request: SandboxRequest, userId: string, execute: () => { status: number; body: unknown }): void {
    this.sweep();
    const key = request.req.headers['idempotency-key'];
    if (typeof key !== 'string' || key === '') {
      const fresh = execute();
      return sendJson(request.res, fresh.status, fresh.body);
    }
    if (key.length > 255) return platformError(request, 400, 'Idempotency-Key must be at most 255 characters');
    const fingerprint = createHash('sha256')
      .update(`${request.req.method} ${request.url.pathname}\n`)
      .update(request.rawBody)
      .digest('base64url');
    const bookKey = `${userId}\n${key}`;
    const stored = this.answers.get(bookKey);
    if (stored) {
      if (stored.fingerprint !== fingerprint)
        return platformError(request, 422, 'Idempotency-Key was already used with a different request');
      return sendJson(request.res, stored.status, stored.body, { 'idempotent-replayed': 'true' });
    }
    const fresh = execute();
    this.answers.set(bookKey, { fingerprint, status: fresh.status, body: fresh.body, at: this.clock() });
    sendJson(request.res, fresh.status, fresh.body);
  }

  private sweep(): void {
    const oldest = this.clock() - DAY_MS;
    for (const [key, stored] of this.answers) {
      if (stored.at >= oldest) break; // insertion order is time order
      this.answers.delete(key);
    }
  }
}
