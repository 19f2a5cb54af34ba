import { Field, Float, GraphQLISODateTime, ID, ObjectType } from 'type-graphql';

@ObjectType({ description: 'One step of a payment or transfer, as the platform recorded it.' })
export class TimelineEntry {
  @Field(() => String)
  status!: string;

  @Field(() => GraphQLISODateTime)
  at!: Date;

  @Field(() => GraphQLISODateTime, { nullable: true, description: 'SENT only: when the money is expected to arrive.' })
  expectedArrival?: Date;
}

@ObjectType({ description: 'What appears on a bank statement: particulars, code and reference.' })
export class StatementDetails {
  @Field(() => String, { nullable: true })
  particulars?: string;

  @Field(() => String, { nullable: true })
  code?: string;

  @Field(() => String, { nullable: true })
  reference?: string;
}

@ObjectType({ description: 'A payment as the platform holds it now.' })
export class Payment {
  @Field(() => ID)
  id!: string;

  @Field(() => String, {
    description: 'READY, PENDING_APPROVAL, PAUSED, SENT, DECLINED, ERROR, CANCELLED, or a newer value.',
  })
  status!: string;

  @Field(() => String, { nullable: true, description: 'Why it is DECLINED, ERROR or CANCELLED (INSUFFICIENT_FUNDS…).' })
  statusCode?: string;

  @Field(() => String, { nullable: true })
  statusText?: string;

  @Field(() => Boolean, { description: 'True once the status can no longer change.' })
  final!: boolean;

  @Field(() => Float)
  amount!: number;

  @Field(() => ID, { nullable: true, description: 'The account the money leaves.' })
  fromAccountId?: string;

  @Field(() => String, { nullable: true })
  toName?: string;

  @Field(() => String, { nullable: true })
  toAccountNumber?: string;

  @Field(() => StatementDetails, { nullable: true, description: 'On the payee\u2019s statement.' })
  payeeStatement?: StatementDetails;

  @Field(() => StatementDetails, {
    nullable: true,
    description: 'On the payer\u2019s statement (the platform puts its own reference in `particulars`).',
  })
  payerStatement?: StatementDetails;

  @Field(() => String, { nullable: true, description: 'The platform\u2019s short reference (`sid`).' })
  reference?: string;

  @Field(() => [TimelineEntry])
  timeline!: TimelineEntry[];

  @Field(() => GraphQLISODateTime, { nullable: true })
  createdAt?: Date;

  @Field(() => GraphQLISODateTime, { nullable: true })
  updatedAt?: Date;

  @Field(() => GraphQLISODateTime, {
    nullable: true,
    description: 'When the payee\u2019s bank received it (only if the payee account is connected to the platform).',
  })
  receivedAt?: Date;
}

@ObjectType({ description: 'A transfer between the user\u2019s own accounts, as the platform holds it now.' })
export class Transfer {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  status!: string;

  @Field(() => String, { nullable: true })
  statusText?: string;

  @Field(() => Boolean)
  final!: boolean;

  @Field(() => Float)
  amount!: number;

  @Field(() => ID, { nullable: true })
  fromAccountId?: string;

  @Field(() => ID, { nullable: true })
  toAccountId?: string;

  @Field(() => String, { nullable: true, description: 'The platform\u2019s short reference (`sid`).' })
  reference?: string;

  @Field(() => [TimelineEntry])
  timeline!: TimelineEntry[];

  @Field(() => GraphQLISODateTime, { nullable: true })
  createdAt?: Date;

  @Field(() => GraphQLISODateTime, { nullable: true })
  updatedAt?: Date;
}

@ObjectType({ description: 'A payment created, or an earlier creation with the same idempotency key replayed.' })
export class PaymentCreation {
  @Field(() => Payment)
  payment!: Payment;

  @Field(() => String, {
    description:
      'The idempotency key used (yours, or the one the gateway derived). Send it again as `idempotencyKey` to retry safely.',
  })
  idempotencyKey!: string;

  @Field(() => Boolean, { description: 'True when this answer replays an earlier creation: nothing new was paid.' })
  replayed!: boolean;
}

@ObjectType({ description: 'A transfer created, or an earlier creation with the same idempotency key replayed.' })
export class TransferCreation {
  @Field(() => Transfer)
  transfer!: Transfer;

  @Field(() => String)
  idempotencyKey!: string;

  @Field(() => Boolean)
  replayed!: boolean;
}
