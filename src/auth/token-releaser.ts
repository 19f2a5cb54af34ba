import type { Logger } from '../lib/logger.js';
import type { CoreClient } from '../upstream/core-client.js';
import { UpstreamError } from '../upstream/upstream-error.js';

export interface TokenReleaserOptions {
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
export function createTokenReleaser(options: TokenReleaserOptions) {
  const delays = options.retryDelaysMs ?? [30_000, 300_000, 1_800_000, 10_800_000];
  const storeDelays = options.storeRetryDelaysMs ?? [1_000, 5_000, 30_000, 300_000, 1_800_000, 10_800_000];
  const timers = new Set<NodeJS.Timeout>();

  /** Whether the user's connection holds `token`; undefined when the store cannot tell now. */
  async function inUse(userId: string, token: string): Promise<boolean | undefined> {
    try {
      return await options.inUse(userId, token);
    } catch (error) {
      options.logger.warn(
        { userId, err: { message: (error as Error).message } },
        'could not tell whether a released token is in use; will ask again',
      );
      return undefined;
    }
  }

  async function attempt(userId: string, token: string): Promise<boolean> {
    try {
      await options.core.revokeToken(token);
      return true;
    } catch (error) {
      if (error instanceof UpstreamError && error.kind === 'http' && (error.status === 403 || error.status === 401))
        return true;
      options.logger.warn(
        {
          userId,
          kind: error instanceof UpstreamError ? error.kind : 'unexpected',
          status: error instanceof UpstreamError ? error.status : undefined,
        },
        'revoking a released token failed',
      );
      return false;
    }
  }

  function later(run: () => void, delayMs: number): void {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, delayMs);
    timer.unref();
    timers.add(timer);
  }

  function giveUp(userId: string): void {
    options.logger.error(
      { userId },
      'gave up revoking a released platform token: the consent stays live until the user revokes it',
    );
  }

  /**
   * One more try after `round` failed ones: revocation failures and store failures each follow
   * their own schedule (`storeRound` counts the latter), and the token is revoked only once the
   * store has said it is not in use.
   */
  function retry(userId: string, token: string, round: number, storeRound: number, storeFailed: boolean): void {
    const schedule = storeFailed ? storeDelays : delays;
    const index = storeFailed ? storeRound : round;
    if (index >= schedule.length) return giveUp(userId);
    later(
      () =>
        void (async () => {
          const used = await inUse(userId, token);
          if (used === undefined) return retry(userId, token, round, storeRound + 1, true);
          if (used) return; // in use again
          if (!(await attempt(userId, token))) retry(userId, token, round + 1, storeRound, false);
        })(),
      schedule[index]!,
    );
  }

  return {
    /**
     * Revokes `token` unless the user's connection holds it. True when no longer live (or kept);
     * false when a later attempt is scheduled, which also happens when the store cannot say
     * whether the connection holds it: the token is never revoked before the store has answered.
     * Never rejects.
     */
    async release(userId: string, token: string): Promise<boolean> {
      const used = await inUse(userId, token);
      if (used === undefined) {
        retry(userId, token, 0, 0, true);
        return false;
      }
      if (used) return true;
      const revoked = await attempt(userId, token);
      if (revoked) options.logger.info({ userId }, 'released platform token revoked');
      else retry(userId, token, 0, 0, false);
      return revoked;
    },
    /** Revokes `token` now, once, whoever holds it (a stopping process that forgets it). True when no longer live. */
    revokeNow(userId: string, token: string): Promise<boolean> {
      return attempt(userId, token);
    },
    close(): void {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}

export type TokenReleaser = ReturnType<typeof createTokenReleaser>;
