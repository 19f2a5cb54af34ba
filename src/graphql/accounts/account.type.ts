import { Field, Float, GraphQLISODateTime, ID, ObjectType, registerEnumType } from 'type-graphql';

export enum AccountStatus {
  ACTIVE = 'ACTIVE',
  INACTIVE = 'INACTIVE',
}
registerEnumType(AccountStatus, {
  name: 'AccountStatus',
  description:
    'INACTIVE: the platform lost access to the account; cached data is still shown, but the user must reconnect.',
});

export enum AccountType {
  CHECKING = 'CHECKING',
  SAVINGS = 'SAVINGS',
  CREDITCARD = 'CREDITCARD',
  LOAN = 'LOAN',
  KIWISAVER = 'KIWISAVER',
  INVESTMENT = 'INVESTMENT',
  TERMDEPOSIT = 'TERMDEPOSIT',
  FOREIGN = 'FOREIGN',
  TAX = 'TAX',
  REWARDS = 'REWARDS',
  WALLET = 'WALLET',
  OTHER = 'OTHER',
}
registerEnumType(AccountType, {
  name: 'AccountType',
  description: 'OTHER stands for any type the platform adds later.',
});

export enum AccountAttribute {
  TRANSACTIONS = 'TRANSACTIONS',
  PAYMENT_TO = 'PAYMENT_TO',
  PAYMENT_FROM = 'PAYMENT_FROM',
  TRANSFER_TO = 'TRANSFER_TO',
  TRANSFER_FROM = 'TRANSFER_FROM',
}
registerEnumType(AccountAttribute, { name: 'AccountAttribute', description: 'What the app may do with the account.' });

@ObjectType({ description: 'Account balance; amounts in `currency`.' })
export class Balance {
  @Field(() => String, { description: 'ISO 4217 code.' })
  currency!: string;

  @Field(() => Float)
  current!: number;

  @Field(() => Float, { nullable: true })
  available?: number;

  @Field(() => Float, { nullable: true })
  limit?: number;

  @Field(() => Boolean, { nullable: true })
  overdrawn?: boolean;
}

@ObjectType({ description: 'The bank (institution) an account is held at.' })
export class Bank {
  @Field(() => ID, { description: 'The platform\u2019s id of the bank, `conn_\u2026`.' })
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  logo?: string;
}

/**
 * The old name of Bank, kept for the deprecated `Account.connection` until the next version: "bank
 * connection" now means only the app user's link to their bank (`Query.bankConnection`).
 */
@ObjectType({ description: 'Deprecated: the same as `Bank`, for `Account.connection`.' })
export class BankConnection extends Bank {}

@ObjectType({ description: 'When the platform last refreshed parts of the account.' })
export class AccountRefreshTimes {
  @Field(() => GraphQLISODateTime, { nullable: true })
  balance?: Date;

  @Field(() => GraphQLISODateTime, { nullable: true })
  transactions?: Date;
}

@ObjectType({
  description: 'A connected account. Listed whatever its status, so the user always sees what the app can access.',
})
export class Account {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => AccountStatus)
  status!: AccountStatus;

  @Field(() => Boolean, {
    description: 'True when the account is INACTIVE: show an alert and send the user to `reconnectUrl`.',
  })
  needsReconnection!: boolean;

  @Field(() => String, {
    nullable: true,
    description: 'Where to send the user to reconnect their bank (the bank connection flow); null while ACTIVE.',
  })
  reconnectUrl?: string;

  @Field(() => String, {
    nullable: true,
    description: 'Account number as the bank formats it (cards partly redacted).',
  })
  formattedAccount?: string;

  @Field(() => AccountType)
  type!: AccountType;

  @Field(() => Balance, { nullable: true })
  balance?: Balance;

  @Field(() => Bank, { description: 'The bank the account is held at.' })
  bank!: Bank;

  @Field(() => BankConnection, {
    deprecationReason: 'Use `bank`. Removed in the next version.',
  })
  connection!: BankConnection;

  @Field(() => [AccountAttribute])
  attributes!: AccountAttribute[];

  @Field(() => String, { nullable: true, description: 'Holder name as the bank supplies it.' })
  holder?: string;

  @Field(() => AccountRefreshTimes, { nullable: true })
  refreshed?: AccountRefreshTimes;
}
