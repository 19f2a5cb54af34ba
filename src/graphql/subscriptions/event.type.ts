import { Field, GraphQLISODateTime, ID, Int, ObjectType } from 'type-graphql';
import { WEBHOOK_EVENTS, type WebhookType } from '@open-finance-gateway/common/webhook-events';
import { Account } from '../accounts/account.type.js';
import { Payment, Transfer } from '../payments/payment.type.js';
import { Transaction } from '../transactions/transaction.type.js';

/**
 * What every event a subscription delivers carries: its place in the user's event log, to resume
 * from, and when it arrived.
 */
@ObjectType()
export abstract class LoggedEventFields {
  @Field(() => String, {
    description:
      'Opaque position of this event. Pass it as `after` when resubscribing to receive what was missed, in order.',
  })
  cursor!: string;

  @Field(() => GraphQLISODateTime, { description: 'When the gateway received the event.' })
  receivedAt!: Date;
}

/** An event from a platform webhook: also which change it reports. */
@ObjectType()
export abstract class WebhookEventFields extends LoggedEventFields {
  @Field(() => String, { description: 'The webhook code: which change this is (the type lists its codes).' })
  code!: string;

  @Field(() => Boolean, {
    description:
      'True when the gateway found this change itself, reconciling what it keeps with the platform: the platform\u2019s webhook for it never arrived.',
  })
  reconciled!: boolean;
}

/** "UPDATE, RECEIVED or WEBHOOK_CANCELLED": a type's codes, from the platform's webhook table. */
function codesOf(type: WebhookType): string {
  const codes: readonly string[] = WEBHOOK_EVENTS[type].codes;
  return codes.length === 1 ? codes[0]! : `${codes.slice(0, -1).join(', ')} or ${codes.at(-1)}`;
}

@ObjectType({
  description: `A payment changed (${codesOf('PAYMENT')}). \`payment\` is re-read when the event arrives, so it is current even if events arrive out of order.`,
})
export class PaymentUpdate extends WebhookEventFields {
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

  @Field(() => Payment, { nullable: true })
  payment?: Payment;
}

@ObjectType({ description: `A transfer changed (${codesOf('TRANSFER')}); \`transfer\` is current.` })
export class TransferUpdate extends WebhookEventFields {
  @Field(() => ID, { nullable: true })
  transferId?: string;

  @Field(() => String, { nullable: true })
  reportedStatus?: string;

  @Field(() => String, { nullable: true })
  statusText?: string;

  @Field(() => GraphQLISODateTime, { nullable: true })
  fundsReceivedAt?: Date;

  @Field(() => Transfer, { nullable: true })
  transfer?: Transfer;
}

@ObjectType({ description: `An account was connected, changed or removed (${codesOf('ACCOUNT')}).` })
export class AccountEvent extends WebhookEventFields {
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
}

@ObjectType({
  description: `Transactions of an account were added, updated or deleted (${codesOf('TRANSACTION')}).`,
})
export class TransactionEvent extends WebhookEventFields {
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
}

@ObjectType({
  description: `An income stream changed (${codesOf('INCOME')}; the platform\u2019s income API is in beta).`,
})
export class IncomeEvent extends WebhookEventFields {
  @Field(() => ID, { nullable: true })
  incomeId?: string;

  @Field(() => [ID])
  newTransactionIds!: string[];

  @Field(() => [ID])
  removedTransactionIds!: string[];
}

@ObjectType({
  description: 'The platform revoked this user\u2019s access; the session ends and the socket closes right after.',
})
export class AccessRevokedEvent extends LoggedEventFields {
  @Field(() => String)
  reason!: string;
}
