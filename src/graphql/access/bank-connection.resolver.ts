import { Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { GatewayContext } from '../context.js';
import { BankConnectionStatus, Connection, MfaStatus } from './bank-connection.type.js';

/** The app user's bank connection: whether there is one, and the way to make one. */
@Resolver()
export class BankConnectionResolver {
  @Query(() => BankConnectionStatus, {
    description:
      'Whether the signed-in app user has connected their bank (and since when), and their multi-factor status. Needs only a session.',
  })
  async bankConnection(@Ctx() context: GatewayContext): Promise<BankConnectionStatus> {
    const { access } = context;
    const stored = access.connected ? await context.connection() : undefined;
    return {
      connected: stored !== undefined,
      connectedAt: stored ? new Date(stored.connectedAt) : undefined,
      connectUrl: access.links.connectUrl,
      mfa: access.mfa.toUpperCase() as MfaStatus,
      mfaFreshUntil: access.mfaFreshUntil === undefined ? undefined : new Date(access.mfaFreshUntil),
      stepUpUrl: access.links.stepUpUrl,
    };
  }

  @Query(() => Connection, { deprecationReason: 'Use `bankConnection`. Removed in the next version.' })
  async connection(@Ctx() context: GatewayContext): Promise<Connection> {
    return this.bankConnection(context);
  }

  @Mutation(() => String, {
    description:
      'The URL to send the user to for connecting (or reconnecting) their bank: the consumer information page, then the platform\u2019s consent. Nothing changes until they consent.',
  })
  connectBank(@Ctx() context: GatewayContext): string {
    return context.access.links.connectUrl;
  }
}
