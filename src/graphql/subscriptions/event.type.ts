import { Field, GraphQLISODateTime, ID, Int, ObjectType } from 'type-graphql';
import { Account } from '../accounts/account.type.js';
import { Payment, Transfer } from '../payments/payment.type.js';
import { Transaction } from '../transactions/transaction.type.js';

@ObjectType({
  description:
    'A payment changed. `payment` is re-read when the event arrives, so it is current even if events arrive out of order.',
})
export class PaymentUpdate {
  @Field(() => String, { description: 'UPDATE, RECEIVED or WEBHOOK_CANCELLED.' })
  code!: string;

  @Field(() => ID, { nullable: true })
  paymentId?: string;

  @Field(() => String, {
    nullable: true,
    description: 'The status the event reported (may be older than `payment.status`).',
  })
  reportedStatus?: string;

  @Field(() => String, { nullable: true })
  statusCode?: string;

  @Field(() => String, { nullable: true })
  statusText?: string;

  @Field(() => GraphQLISODateTime, {
    nullable: true,
    description: 'RECEIVED: when the funds were identified as received.',
  })
  fundsReceivedAt?: Date;

  @Field(() => String, {
    description:
      'Opaque position of this event. Pass it as `after` when resubscribing to receive what was missed, in order.',
  })
  cursor!: string;

  @Field(() => GraphQLISODateTime, { description: 'When the gateway received the event.' })
  receivedAt!: Date;

  @Field(() => Payment, { nullable: true })
  payment?: Payment;
}

@ObjectType({ description: 'A transfer changed; `transfer` is current.' })
export class TransferUpdate {
  @Field(() => String)
  code!: string;

  @Field(() => ID, { nullable: true })
  transferId?: string;

  @Field(() => String, { nullable: true })
  reportedStatus?: string;

  @Field(() => String, { nullable: true })
  statusText?: string;

  @Field(() => GraphQLISODateTime, { nullable: true })
  fundsReceivedAt?: Date;

  @Field(() => String, {
    description:
      'Opaque position of this event. Pass it as `after` when resubscribing to receive what was missed, in order.',
  })
  cursor!: string;

  @Field(() => GraphQLISODateTime)
  receivedAt!: Date;

  @Field(() => Transfer, { nullable: true })
  transfer?: Transfer;
}

@ObjectType({ description: 'An account was connected, changed or removed.' })
export class AccountEvent {
  @Field(() => String, { description: 'CREATE, UPDATE, DELETE or WEBHOOK_CANCELLED.' })
  code!: string;

  @Field(() => ID, { nullable: true })
  accountId?: string;

  @Field(() => [String], { description: 'UPDATE: which fields changed.' })
  updatedFields!: string[];

  @Field(() => Boolean, {
    description: 'True when the account is now INACTIVE: alert the user and send them to `account.reconnectUrl`.',
  })
  becameInactive!: boolean;

  @Field(() => Account, { nullable: true, description: 'The account as it is now; null once deleted or revoked.' })
  account?: Account;

  @Field(() => String, {
    description:
      'Opaque position of this event. Pass it as `after` when resubscribing to receive what was missed, in order.',
  })
  cursor!: string;

  @Field(() => GraphQLISODateTime)
  receivedAt!: Date;
}

@ObjectType({ description: 'Transactions of an account were added, updated or deleted.' })
export class TransactionEvent {
  @Field(() => String, { description: 'INITIAL_UPDATE, DEFAULT_UPDATE, DELETE or WEBHOOK_CANCELLED.' })
  code!: string;

  @Field(() => ID, { nullable: true })
  accountId?: string;

  @Field(() => Int)
  newTransactionCount!: number;

  @Field(() => [ID])
  newTransactionIds!: string[];

  @Field(() => [Transaction], {
    description: 'The new or updated transactions, read from the platform for this event.',
  })
  newTransactions!: Transaction[];

  @Field(() => [ID])
  removedTransactionIds!: string[];

  @Field(() => String, {
    description:
      'Opaque position of this event. Pass it as `after` when resubscribing to receive what was missed, in order.',
  })
  cursor!: string;

  @Field(() => GraphQLISODateTime)
  receivedAt!: Date;
}

@ObjectType({ description: 'An income stream changed (the platform\u2019s income API is in beta).' })
export class IncomeEvent {
  @Field(() => String)
  code!: string;

  @Field(() => ID, { nullable: true })
  incomeId?: string;

  @Field(() => [ID])
  newTransactionIds!: string[];

  @Field(() => [ID])
  removedTransactionIds!: string[];

  @Field(() => String, {
    description:
      'Opaque position of this event. Pass it as `after` when resubscribing to receive what was missed, in order.',
  })
  cursor!: string;

  @Field(() => GraphQLISODateTime)
  receivedAt!: Date;
}

@ObjectType({
  description: 'The platform revoked this user\u2019s access; the session ends and the socket closes right after.',
})
export class AccessRevokedEvent {
  @Field(() => String)
  reason!: string;

  @Field(() => String, {
    description:
      'Opaque position of this event. Pass it as `after` when resubscribing to receive what was missed, in order.',
  })
  cursor!: string;

  @Field(() => GraphQLISODateTime)
  receivedAt!: Date;
}
