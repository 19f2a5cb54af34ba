import { Field, Float, ID, InputType } from 'type-graphql';

@InputType({ description: 'Who receives a payment.' })
export class PayeeInput {
  @Field(() => String, { description: 'The account holder\u2019s name, as the payee\u2019s bank knows it.' })
  name!: string;

  @Field(() => String, { description: 'A New Zealand account number: 00-0000-0000000-00 (suffix of 2 or 3 digits).' })
  accountNumber!: string;
}

@InputType({ description: 'Statement details: each at most 12 of A-Z a-z 0-9 space - _.' })
export class StatementDetailsInput {
  @Field(() => String, { nullable: true })
  particulars?: string;

  @Field(() => String, { nullable: true })
  code?: string;

  @Field(() => String, { nullable: true })
  reference?: string;
}

@InputType({ description: 'On the payer\u2019s own statement (the platform fills in `particulars`).' })
export class PayerStatementInput {
  @Field(() => String, { nullable: true })
  code?: string;

  @Field(() => String, { nullable: true })
  reference?: string;
}

@InputType()
export class CreatePaymentInput {
  @Field(() => ID, { description: 'One of the user\u2019s accounts with the PAYMENT_FROM attribute.' })
  from!: string;

  @Field(() => PayeeInput)
  to!: PayeeInput;

  @Field(() => Float, { description: 'NZD, positive, at most 2 decimal places.' })
  amount!: number;

  @Field(() => StatementDetailsInput, { nullable: true })
  payeeStatement?: StatementDetailsInput;

  @Field(() => PayerStatementInput, { nullable: true })
  payerStatement?: PayerStatementInput;
}

@InputType()
export class CreateTransferInput {
  @Field(() => ID, { description: 'One of the user\u2019s accounts with TRANSFER_FROM.' })
  from!: string;

  @Field(() => ID, { description: 'Another of the user\u2019s accounts with TRANSFER_TO.' })
  to!: string;

  @Field(() => Float, { description: 'NZD, positive, at most 2 decimal places.' })
  amount!: number;
}
