import { Field, GraphQLISODateTime, ID, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'The app no longer has access to this account.' })
export class AccountRevocation {
  @Field(() => ID)
  accountId!: string;
}

@ObjectType({
  description: 'All access ended: the platform token is revoked and the gateway has deleted what it held for the user.',
})
export class AccessRevocation {
  @Field(() => Boolean, { description: 'Always true: a failed revocation is an error, never `false`.' })
  revoked!: boolean;

  @Field(() => Boolean, {
    description: 'The session that made the call has ended; the next request needs a new sign-in.',
  })
  signedOut!: boolean;

  @Field(() => Int, {
    description: 'Platform tokens revoked, counting this session\u2019s and those of the user\u2019s other sessions.',
  })
  tokensRevoked!: number;

  @Field(() => Int, {
    description:
      'Tokens of other sessions the platform could not revoke just now (logged; the gateway has deleted them regardless).',
  })
  tokensFailed!: number;
}

@ObjectType({
  description: 'The platform accepted the refresh; new data arrives asynchronously (watch `refreshed` times).',
})
export class RefreshRequest {
  @Field(() => ID, { nullable: true, description: 'The account (or connection) refreshed; null for all of them.' })
  accountId?: string;

  @Field(() => GraphQLISODateTime)
  requestedAt!: Date;
}
