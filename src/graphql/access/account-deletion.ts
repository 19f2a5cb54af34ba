import { setTimeout as delay } from 'node:timers/promises';
import { AccessRevokedError, UpstreamError } from '../../upstream/upstream-error.js';
import type { GatewayContext } from '../context.js';

/** One platform call is tried this many times before the deletion reports it as not done. */
const ATTEMPTS = 3;
const FIRST_RETRY_MS = 100;

export interface DeletionFailure {
  step: 'list-webhooks' | 'delete-webhook' | 'revoke-other-tokens' | 'revoke-token';
  reason: string;
}

export interface DeletionOutcome {
  /** Everything was done: webhooks removed, every token revoked, the gateway's records deleted. */
  complete: boolean;
  /** The user's access at the platform is over (this session's token is revoked). */
  accessEnded: boolean;
  webhooksRemoved: number;
  tokensRevoked: number;
  failures: DeletionFailure[];
}

/** Whether a failed platform call may succeed if tried again (never a refusal such as 400 or 404). */
function transient(error: unknown): boolean {
  if (!(error instanceof UpstreamError)) return false;
  if (error.details.circuitOpen) return true;
  if (error.kind === 'timeout' || error.kind === 'unavailable') return true;
  return error.kind === 'http' && (error.status === 429 || (error.status ?? 0) >= 500);
}

async function withRetries<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= ATTEMPTS || !transient(error)) throw error;
      await delay(FIRST_RETRY_MS * 2 ** (attempt - 1));
    }
  }
}

function reasonOf(error: unknown): string {
  if (error instanceof UpstreamError)
    return error.kind === 'http' ? `the platform answered ${error.status}` : `the platform was ${error.kind}`;
  return 'unexpected error';
}

/**
 * The user deletes their account with the app: the accreditation rules require all access to be
 * revoked. In order, because each step needs the token the next one ends: the user's webhook
 * subscriptions are removed, the tokens of their other sessions revoked, this session's token
 * revoked; then every session ends and everything the gateway holds for the user is deleted
 * (sockets close with 4401). Platform calls that fail for a passing reason are retried; what still
 * fails is reported, never passed over. If this token cannot be revoked, nothing local is deleted,
 * so the user can try again with the same session.
 */
export async function deleteAccount(context: GatewayContext): Promise<DeletionOutcome> {
  // Never connected (or the connection already ended): no platform access to end, only the app's records.
  if (!context.access.connected) {
    await context.session.end();
    context.logger.info({ userId: context.user.id, connected: false }, 'account deleted at the user\u2019s request');
    return { complete: true, accessEnded: true, webhooksRemoved: 0, tokensRevoked: 0, failures: [] };
  }
  const failures: DeletionFailure[] = [];
  let webhooksRemoved = 0;
  let tokenAlreadyDead = false;
  try {
    const hooks = await withRetries(() => context.userClient.listWebhooks());
    for (const hook of hooks) {
      try {
        await withRetries(() => context.userClient.deleteWebhook(hook._id));
        webhooksRemoved += 1;
      } catch (error) {
        if (error instanceof AccessRevokedError) throw error;
        failures.push({ step: 'delete-webhook', reason: reasonOf(error) });
      }
    }
  } catch (error) {
    if (error instanceof AccessRevokedError) tokenAlreadyDead = true;
    else failures.push({ step: 'list-webhooks', reason: reasonOf(error) });
  }

  const others = tokenAlreadyDead ? { revoked: 0, failed: 0 } : await context.session.revokeOtherTokens();
  if (others.failed > 0)
    failures.push({ step: 'revoke-other-tokens', reason: `${others.failed} token(s) of other sessions not revoked` });

  let accessEnded = tokenAlreadyDead;
  if (!tokenAlreadyDead) {
    try {
      await withRetries(() => context.userClient.revokeToken());
      accessEnded = true;
    } catch (error) {
      // Already dead at the platform: the outcome wanted.
      if (error instanceof AccessRevokedError) accessEnded = true;
      else failures.push({ step: 'revoke-token', reason: reasonOf(error) });
    }
  }
  if (accessEnded) await context.session.end();
  context.logger.info(
    { userId: context.user.id, webhooksRemoved, accessEnded, failures: failures.map((failure) => failure.step) },
    accessEnded ? 'account deleted at the user\u2019s request' : 'account deletion could not revoke access',
  );
  return {
    complete: accessEnded && failures.length === 0,
    accessEnded,
    webhooksRemoved,
    tokensRevoked: others.revoked + (accessEnded && !tokenAlreadyDead ? 1 : 0),
    failures,
  };
}
