import { Field, GraphQLISODateTime, ID, ObjectType } from 'type-graphql';
import { Transaction } from './transaction.type.js';

@ObjectType({
  simpleResolvers: true,
  description: 'A settled transaction that is gone: remove it from the app\u2019s copy.',
})
export class RemovedTransaction {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  accountId!: string;
}

/**
 * What changed in the user's settled transactions since a sync cursor, in the shape of Plaid's
 * `/transactions/sync`. Its GraphQL name is the operation's, as Plaid names its response.
 */
@ObjectType('TransactionsSync', {
  simpleResolvers: true,
  description:
    'What changed since the cursor given: rows to add, rows to replace (by id), ids to remove, and the cursor to continue from. Apply `removed` after `added` and `modified`.',
})
export class TransactionsSyncPage {
  @Field(() => [Transaction], {
    description: 'New to the app\u2019s copy (on the first sync, every settled transaction in the window).',
  })
  added!: Transaction[];

  @Field(() => [Transaction], { description: 'Already in the app\u2019s copy, changed: replace it by id.' })
  modified!: Transaction[];

  @Field(() => [RemovedTransaction])
  removed!: RemovedTransaction[];

  @Field(() => String, { description: 'Keep it, and pass it as `cursor` next time (or to the subscription).' })
  nextCursor!: string;

  @Field(() => Boolean, { description: 'True: ask again at once with `nextCursor`; more has already changed.' })
  hasMore!: boolean;

  @Field(() => GraphQLISODateTime, {
    nullable: true,
    description:
      'The window synced: settled transactions dated after this instant (null: all history). Later than the `start` asked for when the user\u2019s history is more than the gateway keeps for one user: rows older than it are not synced.',
  })
  start!: Date | null;
}
