import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { GatewayContext } from '../context.js';
import { ErrorCode, gatewayError } from '../errors.js';
import { BankConnectionStart, BankConnectionStatus, Connection, MfaStatus } from './bank-connection.type.js';

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

  @Mutation(() => BankConnectionStart, {
    description:
      'For native apps: a single-use connection URL to open in the system browser, for connecting (or reconnecting an INACTIVE) bank. `returnUri` must be one of the gateway\u2019s APP_RETURN_URIS; `state` (your own value, up to 512 visible ASCII characters) comes back with the outcome. Needs multi-factor as the policy demands.',
  })
  async startBankConnection(
    @Ctx() context: GatewayContext,
    @Arg('returnUri', () => String) returnUri: string,
    @Arg('state', () => String) state: string,
  ): Promise<BankConnectionStart> {
    const started = await context.startBankConnection(returnUri, state);
    if ('refused' in started)
      throw gatewayError(
        ErrorCode.BAD_USER_INPUT,
        started.refused === 'RETURN_URI_NOT_ALLOWED'
          ? 'This return URI is not registered with the gateway (APP_RETURN_URIS).'
          : '`state` must be 1 to 512 visible ASCII characters.',
        { reason: started.refused },
      );
    return { url: started.url, expiresAt: new Date(started.expiresAt) };
  }
}
