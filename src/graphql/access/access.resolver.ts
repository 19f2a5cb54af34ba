import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { AccessRevokedError } from '../../upstream/upstream-error.js';
import type { GatewayContext } from '../context.js';
import { AccessRevocation, AccountDeletion, AccountRevocation, RefreshRequest, RefreshStatus } from './access.type.js';
import { deleteAccount } from './account-deletion.js';

/** The platform allows one refresh per 5 minutes: one unanswered longer is taken as over. */
const REFRESH_RUNNING_MS = 5 * 60_000;

/** Consumer controls: revoke one account or everything, and ask the platform for fresh data. */
@Resolver()
export class AccessResolver {
  @Mutation(() => AccountRevocation, {
    description: 'Revokes the app\u2019s access to one account (`DELETE /v1/accounts/{id}`).',
  })
  async revokeAccount(@Arg('id', () => ID) id: string, @Ctx() context: GatewayContext): Promise<AccountRevocation> {
    await context.userClient.revokeAccount(id);
    await context.loaders.accountRevoked(id);
    context.logger.info({ userId: context.user.id, accountId: id }, 'account access revoked by the user');
    return { accountId: id };
  }

  @Mutation(() => AccessRevocation, {
    description:
      'Revokes all access (`DELETE /v1/token`), ends the user\u2019s sessions and deletes everything the gateway holds for them. ' +
      'Also the call to make when the user deletes their account with the app.',
  })
  async revokeAllAccess(@Ctx() context: GatewayContext): Promise<AccessRevocation> {
    // Other sessions first: if this token turns out to be dead already, handling that 403 ends the
    // sessions holding it, and the other sessions' tokens must have been found before that.
    const others = await context.session.revokeOtherTokens();
    try {
      await context.userClient.revokeToken();
    } catch (error) {
      // Already dead on the platform's side: the outcome the user asked for. Anything else is a
      // real failure, reported as such, and the session stays so the user can try again.
      if (!(error instanceof AccessRevokedError)) throw error;
    }
    // Always: a 403 above ended only this token's sessions, and every session must go.
    await context.session.end();
    context.logger.info({ userId: context.user.id, otherTokens: others }, 'all access revoked by the user');
    return { revoked: true, signedOut: true, tokensRevoked: 1 + others.revoked, tokensFailed: others.failed };
  }

  @Mutation(() => AccountDeletion, {
    description:
      'The user deletes their account with the app: removes their webhook registrations at the platform (`DELETE /v1/webhooks/{id}`), revokes every platform token (`DELETE /v1/token`), then ends every session and deletes everything the gateway holds for them (sockets close with 4401). Passing failures are retried; what still fails is reported in `failures`, never passed over.',
  })
  async deleteMyAccount(@Ctx() context: GatewayContext): Promise<AccountDeletion> {
    return deleteAccount(context);
  }

  @Mutation(() => RefreshRequest, {
    description:
      'Asks the platform to refresh data now (`POST /v1/refresh`, or `/v1/refresh/{id}` for one account). ' +
      'At most once per 5 minutes: more often is RATE_LIMITED.',
  })
  async refresh(
    @Ctx() context: GatewayContext,
    @Arg('accountId', () => ID, { nullable: true }) accountId?: string,
  ): Promise<RefreshRequest> {
    const requestedAt = new Date();
    await context.userClient.refresh(accountId ?? undefined);
    // The refresh happened: a store that cannot note it only leaves refreshStatus not knowing.
    await context.loaders
      .refreshRequested(accountId ?? undefined, requestedAt)
      .catch((error: unknown) =>
        context.logger.warn({ err: { message: (error as Error).message } }, 'could not note the refresh'),
      );
    return { accountId: accountId ?? undefined, requestedAt };
  }

  @Query(() => RefreshStatus, {
    description:
      'Whether a refresh asked for with `refresh` is still running. The platform answers a refresh with webhooks, and the data read after them is its result.',
  })
  async refreshStatus(@Ctx() context: GatewayContext): Promise<RefreshStatus> {
    const open = await context.loaders.openRefresh();
    if (!open || Date.now() - open.requestedAt.getTime() >= REFRESH_RUNNING_MS) return { running: false };
    return { running: true, requestedAt: open.requestedAt, accountId: open.accountId };
  }
}
