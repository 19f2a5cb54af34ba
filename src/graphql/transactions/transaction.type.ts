import { Field, Float, GraphQLISODateTime, ID, ObjectType } from 'type-graphql';
import { TransactionDirection } from '../enrichment/enrichment.type.js';

/*
 * Plain data: graphql-js's default property resolver (`simpleResolvers`) rather than
 * type-graphql's per-field wrapper, which a page of 100 rows would call over a thousand times.
 * `enrichment` keeps its own resolver (TransactionResolver). A field here must not need
 * @Authorized or middleware: test/graphql/simple-resolvers.test.ts fails if one does.
 */
@ObjectType({ simpleResolvers: true, description: 'A settled transaction.' })
export class Transaction {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  accountId!: string;

  @Field(() => ID, { description: 'The bank the transaction came from (`conn_…`, as `Account.bank.id`).' })
  bankId!: string;

  @Field(() => ID, { deprecationReason: 'Use `bankId`. Removed in the next version.' })
  connectionId!: string;

  @Field(() => GraphQLISODateTime, { description: 'When the bank posted it (UTC).' })
  date!: Date;

  @Field(() => String, { description: 'The raw description from the bank.' })
  description!: string;

  @Field(() => Float, { description: 'Negative for money out.' })
  amount!: number;

  @Field(() => TransactionDirection)
  direction!: TransactionDirection;

  @Field(() => Float, {
    nullable: true,
    description: 'Account balance after this transaction, when the bank reports it.',
  })
  balance?: number;

  @Field(() => String, { description: 'The platform\u2019s transaction type, such as EFTPOS or DIRECT DEBIT.' })
  type!: string;

  @Field(() => String, { nullable: true })
  particulars?: string;

  @Field(() => String, { nullable: true })
  code?: string;

  @Field(() => String, { nullable: true })
  reference?: string;

  @Field(() => String, { nullable: true, description: 'The other party\u2019s account number, when known.' })
  otherAccount?: string;

  @Field(() => String, { nullable: true })
  cardSuffix?: string;
}

@ObjectType({
  description: 'A pending transaction. It has no id: pending rows change and are replaced when they settle.',
})
export class PendingTransaction {
  @Field(() => ID)
  accountId!: string;

  @Field(() => ID, { description: 'The bank the transaction came from (`conn_…`, as `Account.bank.id`).' })
  bankId!: string;

  @Field(() => ID, { deprecationReason: 'Use `bankId`. Removed in the next version.' })
  connectionId!: string;

  @Field(() => GraphQLISODateTime)
  date!: Date;

  @Field(() => String)
  description!: string;

  @Field(() => Float)
  amount!: number;

  @Field(() => TransactionDirection)
  direction!: TransactionDirection;

  @Field(() => String)
  type!: string;

  @Field(() => GraphQLISODateTime, { nullable: true })
  updatedAt?: Date;
}

@ObjectType({ simpleResolvers: true })
export class TransactionEdge {
  @Field(() => String, { description: 'Opaque; pass as `after` to continue after this transaction.' })
  cursor!: string;

  @Field(() => Transaction)
  node!: Transaction;
}

@ObjectType({ simpleResolvers: true })
export class PageInfo {
  @Field(() => Boolean, {
    description: 'True when more transactions may follow (the next page can occasionally be empty).',
  })
  hasNextPage!: boolean;

  @Field(() => String, { nullable: true })
  endCursor?: string;
}

/** A page of transactions. Its GraphQL name follows the cursor-connection convention clients' caches know. */
@ObjectType('TransactionConnection', { simpleResolvers: true, description: 'A page of transactions, newest first.' })
export class TransactionPage {
  @Field(() => [TransactionEdge])
  edges!: TransactionEdge[];

  @Field(() => [Transaction], { description: 'The same transactions as `edges`, without cursors.' })
  nodes!: Transaction[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;
}
