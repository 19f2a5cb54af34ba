import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { AccessRevokedError } from '../../upstream/upstream-error.js';
import type { GatewayContext } from '../context.js';
import { AccessRevocation, AccountDeletion, AccountRevocation, RefreshRequest } from './access.type.js';
import { deleteAccount } from './account-deletion.js';

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
    await context.userClient.refresh(accountId ?? undefined);
    return { accountId: accountId ?? undefined, requestedAt: new Date() };
  }
}
