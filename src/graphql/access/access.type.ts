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

@ObjectType({ description: 'A step of an account deletion that could not be done.' })
export class DeletionFailure {
  @Field(() => String, { description: 'list-webhooks, delete-webhook, revoke-other-tokens or revoke-token.' })
  step!: string;

  @Field(() => String)
  reason!: string;
}

@ObjectType({ description: 'What deleting the account did, and what it could not do.' })
export class AccountDeletion {
  @Field(() => Boolean, {
    description: 'Everything was done: webhooks removed, every token revoked, every record of the user deleted.',
  })
  complete!: boolean;

  @Field(() => Boolean, {
    description:
      'The user’s access at the platform has ended and they are signed out, with all the gateway held for them deleted. False: nothing local was deleted; try again.',
  })
  accessEnded!: boolean;

  @Field(() => Int)
  webhooksRemoved!: number;

  @Field(() => Int)
  tokensRevoked!: number;

  @Field(() => [DeletionFailure], { description: 'What could not be done, after retries. Empty when complete.' })
  failures!: DeletionFailure[];
}

@ObjectType({
  description: 'The platform accepted the refresh; new data arrives asynchronously (watch `refreshed` times).',
})
export class RefreshRequest {
  @Field(() => ID, { nullable: true, description: 'The account refreshed; null for all of them.' })
  accountId?: string;

  @Field(() => GraphQLISODateTime)
  requestedAt!: Date;
}

@ObjectType({
  description:
    'Whether a refresh this app asked for is still running: from `refresh` until the platform\u2019s first ACCOUNT or TRANSACTION webhook for the user (their data is then read afresh), at most 5 minutes. Known only with the user-data store on (`USER_DATA_STORE`); otherwise never running.',
})
export class RefreshStatus {
  @Field(() => Boolean)
  running!: boolean;

  @Field(() => GraphQLISODateTime, { nullable: true, description: 'When the running refresh was asked for.' })
  requestedAt?: Date;

  @Field(() => ID, { nullable: true, description: 'The account it was for; null for all of them.' })
  accountId?: string;
}
