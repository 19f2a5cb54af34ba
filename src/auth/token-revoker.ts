import type { Logger } from '@open-finance-gateway/common/logger';
import type { CoreClient } from '../upstream/core-client.js';
import { UpstreamError } from '../upstream/upstream-error.js';

export interface TokenRevokerOptions {
  core: Pick<CoreClient, 'revokeToken'>;
  /** Whether the gateway still uses `token` for the user (their connection holds it): then it stays. */
  inUse(userId: string, token: string): Promise<boolean>;
  logger: Logger;
  /** Later attempts after a failed revocation. @default [30 s, 5 min, 30 min, 3 h] */
  retryDelaysMs?: number[];
  /**
   * Later attempts when the store could not say whether the token is in use (it was stalled or
   * down): sooner, since the store usually answers again within seconds. @default [1 s, 5 s, 30 s, 5 min, 30 min, 3 h]
   */
  storeRetryDelaysMs?: number[];
}

/**
 * A platform token the gateway stops holding (a connection replaced by a new consent) is revoked:
 * a token the gateway forgets but the platform still honours is consent nobody can use or end,
 * which the retention rule forbids, so it is revoked (`DELETE /v1/token`) unless the user's
 * connection holds it again. A failed revocation is retried in the background; a 403
 * means the token is dead already, which is the outcome wanted.
 */
export function createTokenRevoker(options: TokenRevokerOptions): TokenRevoker {
  return new TokenRevoker(options);
}

export class TokenRevoker {
  private readonly delays: number[];
  private readonly storeDelays: number[];
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly options: TokenRevokerOptions) {
    this.delays = options.retryDelaysMs ?? [30_000, 300_000, 1_800_000, 10_800_000];
    this.storeDelays = options.storeRetryDelaysMs ?? [1_000, 5_000, 30_000, 300_000, 1_800_000, 10_800_000];
  }

  /**
   * Revokes `token` unless the user's connection holds it. True when no longer live (or kept);
   * false when a later attempt is scheduled, which also happens when the store cannot say
   * whether the connection holds it: the token is never revoked before the store has answered.
   * Never rejects.
   */
  async revokeUnlessHeld(userId: string, token: string): Promise<boolean> {
    const used = await this.inUse(userId, token);
    if (used === undefined) {
      this.retry(userId, token, 0, 0, true);
      return false;
    }
    if (used) return true;
    const revoked = await this.attempt(userId, token);
    if (revoked) this.options.logger.info({ userId }, 'replaced platform token revoked');
    else this.retry(userId, token, 0, 0, false);
    return revoked;
  }

  /** Revokes `token` now, once, whoever holds it (a stopping process that forgets it). True when no longer live. */
  revokeNow(userId: string, token: string): Promise<boolean> {
    return this.attempt(userId, token);
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /** Whether the user's connection holds `token`; undefined when the store cannot tell now. */
  private async inUse(userId: string, token: string): Promise<boolean | undefined> {
    try {
      return await this.options.inUse(userId, token);
    } catch (error) {
      this.options.logger.warn(
        { userId, err: { message: (error as Error).message } },
        'could not tell whether a replaced token is in use; will ask again',
      );
      return undefined;
    }
  }

  private async attempt(userId: string, token: string): Promise<boolean> {
    try {
      await this.options.core.revokeToken(token);
      return true;
    } catch (error) {
      if (error instanceof UpstreamError && error.kind === 'http' && (error.status === 403 || error.status === 401))
        return true;
      this.options.logger.warn(
        {
          userId,
          kind: error instanceof UpstreamError ? error.kind : 'unexpected',
          status: error instanceof UpstreamError ? error.status : undefined,
        },
        'revoking a replaced token failed',
      );
      return false;
    }
  }

  /**
   * One more try after `round` failed ones: revocation failures and store failures each follow
   * their own schedule (`storeRound` counts the latter), and the token is revoked only once the
   * store has said it is not in use.
   */
  private retry(userId: string, token: string, round: number, storeRound: number, storeFailed: boolean): void {
    const schedule = storeFailed ? this.storeDelays : this.delays;
    const index = storeFailed ? storeRound : round;
    if (index >= schedule.length) return this.giveUp(userId);
    this.later(
      () =>
        void (async () => {
          const used = await this.inUse(userId, token);
          if (used === undefined) return this.retry(userId, token, round, storeRound + 1, true);
          if (used) return; // in use again
          if (!(await this.attempt(userId, token))) this.retry(userId, token, round + 1, storeRound, false);
        })(),
      schedule[index]!,
    );
  }

  private later(run: () => void, delayMs: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
  }

  private giveUp(userId: string): void {
    this.options.logger.error(
      { userId },
      'gave up revoking a replaced platform token: the consent stays live until the user revokes it',
    );
  }
}
