import { Field, GraphQLISODateTime, ObjectType, registerEnumType } from 'type-graphql';

export enum MfaStatus {
  NONE = 'NONE',
  STALE = 'STALE',
  FRESH = 'FRESH',
}

registerEnumType(MfaStatus, {
  name: 'MfaStatus',
  description:
    'The session\u2019s multi-factor status: NONE (the sign-in had no second factor), STALE (older than the freshness limit: step up before moving money), FRESH.',
});

@ObjectType({
  description:
    'The signed-in app user\u2019s bank connection and sign-in strength: what a frontend needs to decide whether to send the user to connect, sign in again or step up.',
})
export class BankConnectionStatus {
  @Field(() => Boolean, { description: 'The user has connected their bank and the gateway holds the consent.' })
  connected!: boolean;

  @Field(() => GraphQLISODateTime, {
    nullable: true,
    description: 'When the user gave the consent; null when not connected.',
  })
  connectedAt?: Date;

  @Field(() => String, {
    description: 'Where to (re)connect: the consumer information page, then the platform\u2019s consent page.',
  })
  connectUrl!: string;

  @Field(() => MfaStatus)
  mfa!: MfaStatus;

  @Field(() => GraphQLISODateTime, {
    nullable: true,
    description: 'When the multi-factor status turns STALE (money then needs a step-up); null without a second factor.',
  })
  mfaFreshUntil?: Date;

  @Field(() => String, { description: 'Where to authenticate again now (fresh multi-factor), then come back.' })
  stepUpUrl!: string;
}

/** The old name of BankConnectionStatus, kept for the deprecated `Query.connection` until the next version. */
@ObjectType({ description: 'Deprecated: the same as `BankConnectionStatus`, for `Query.connection`.' })
export class Connection extends BankConnectionStatus {}

@ObjectType({
  description:
    'A connection URL for a native app: open it in the system browser (ASWebAuthenticationSession, Custom Tabs). Single use, valid until `expiresAt`, bound to the signed-in user; needs no cookie.',
})
export class BankConnectionStart {
  @Field(() => String, {
    description:
      'The consumer information page, then the platform\u2019s consent; at the end the browser goes to `returnUri` with `outcome` (connected, refused, error) and your `state`.',
  })
  url!: string;

  @Field(() => GraphQLISODateTime, {
    description: 'After this the URL answers CONNECTION_URL_EXPIRED: ask for a new one.',
  })
  expiresAt!: Date;
}
