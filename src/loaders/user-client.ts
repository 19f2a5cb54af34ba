import type { CoreClient } from '../upstream/core-client.js';
import { userCalls, type BoundUserCalls, type UserCallName } from '../upstream/core-user-calls.js';
import { AccessRevokedError, RefreshForbiddenError, UpstreamError } from '../upstream/upstream-error.js';

/**
 * The core API for one signed-in user: the token is bound here and never handed to resolvers.
 * Subscribing to webhooks is the connection's business, not a request's.
 */
export type UserClient = Omit<BoundUserCalls, 'registerWebhook'>;

function isForbidden(error: unknown): boolean {
  return error instanceof UpstreamError && error.kind === 'http' && error.status === 403;
}

/**
 * Binds the core client to a user's token and applies the platform's rule that a 403 means the
 * token is dead: `onAccessRevoked` runs (once) and callers get AccessRevokedError. `/refresh` is the
 * exception the specification names: its 403 may only mean "not allowed to refresh", so the
 * gateway asks `GET /me` with the same token to tell the two apart. Every call goes through
 * `limit`, the user's share of upstream concurrency.
 */
export function bindUserClient(
  core: CoreClient,
  token: string,
  onAccessRevoked: () => Promise<void>,
  limit: <T>(call: () => Promise<T>) => Promise<T> = (call) => call(),
): UserClient {
  let revocation: Promise<void> | undefined;
  const revoked = async (): Promise<never> => {
    revocation ??= onAccessRevoked();
    await revocation;
    throw new AccessRevokedError();
  };
  // `core` is read on each call, not here: a request that never calls upstream never touches it.
  const guarded = (name: UserCallName) => {
    const call = (...args: unknown[]) =>
      (core[name] as (userToken: string, ...rest: unknown[]) => Promise<unknown>)(token, ...args);
    return async (...args: unknown[]): Promise<unknown> => {
      try {
        return await limit(() => call(...args));
      } catch (error) {
        if (isForbidden(error)) return revoked();
        throw error;
      }
    };
  };
  const platform = Object.fromEntries(
    (Object.keys(userCalls) as UserCallName[])
      .filter((name) => name !== 'registerWebhook' && name !== 'refresh')
      .map((name) => [name, guarded(name)]),
  ) as Omit<UserClient, 'refresh'>;
  return {
    ...platform,
    async refresh(id?: string) {
      try {
        await limit(() => core.refresh(token, id));
      } catch (error) {
        if (!isForbidden(error)) throw error;
        await platform.getMe(); // throws AccessRevokedError when the token itself is dead
        throw new RefreshForbiddenError(
          (error as UpstreamError).details.platformMessage ?? 'The platform does not allow a refresh for this user.',
        );
      }
    },
  };
}
