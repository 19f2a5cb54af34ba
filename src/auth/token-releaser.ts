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
  const timers = new Set<NodeJS.Timeout>();

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

  function retry(userId: string, token: string, round: number): void {
    if (round >= delays.length) {
      options.logger.error(
        { userId },
        'gave up revoking a released platform token: the consent stays live until the user revokes it',
      );
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      void (async () => {
        if (await options.inUse(userId, token)) return; // in use again
        if (!(await attempt(userId, token))) retry(userId, token, round + 1);
      })();
    }, delays[round]);
    timer.unref();
    timers.add(timer);
  }

  return {
    /** Revokes `token` unless the user's connection holds it. True when no longer live. */
    async release(userId: string, token: string): Promise<boolean> {
      if (await options.inUse(userId, token)) return true;
      const revoked = await attempt(userId, token);
      if (revoked) options.logger.info({ userId }, 'released platform token revoked');
      else retry(userId, token, 0);
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
