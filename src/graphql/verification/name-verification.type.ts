import { Field, ID, InputType, InterfaceType, ObjectType, registerEnumType } from 'type-graphql';

export enum NameSourceType {
  HOLDER_NAME = 'HOLDER_NAME',
  PARTY_NAME = 'PARTY_NAME',
}
registerEnumType(NameSourceType, {
  name: 'NameSourceType',
  description:
    'HOLDER_NAME: the account\u2019s legal holder(s) as the bank supplies them. PARTY_NAME: the person or entity behind the login.',
});

export enum NameMatchResult {
  MATCH = 'MATCH',
  PARTIAL_MATCH = 'PARTIAL_MATCH',
}
registerEnumType(NameMatchResult, {
  name: 'NameMatchResult',
  description: 'MATCH: every supplied name matched in full. PARTIAL_MATCH: the family name matched, not all others.',
});

@InputType({ description: 'The name to verify. Only the parts you supply are judged.' })
export class NameInput {
  @Field(() => String)
  familyName!: string;

  @Field(() => String, { nullable: true })
  givenName?: string;

  @Field(() => String, { nullable: true, description: 'Several middle names separated by single spaces.' })
  middleName?: string;
}

@ObjectType({ description: 'Which parts of the name matched. Initials count only when the full name did not match.' })
export class NameVerificationFlags {
  @Field(() => Boolean)
  familyName!: boolean;

  @Field(() => Boolean)
  givenName!: boolean;

  @Field(() => Boolean)
  givenInitial!: boolean;

  @Field(() => Boolean)
  middleName!: boolean;

  @Field(() => Boolean)
  middleInitial!: boolean;
}

@InterfaceType({
  description: 'A source the name was compared with. Only sources whose family name matched are listed.',
  resolveType: (source: { type: NameSourceType }) =>
    source.type === NameSourceType.HOLDER_NAME ? 'HolderNameSource' : 'PartyNameSource',
})
export abstract class NameVerificationSource {
  @Field(() => NameSourceType)
  type!: NameSourceType;

  @Field(() => NameMatchResult)
  matchResult!: NameMatchResult;

  @Field(() => NameVerificationFlags)
  verification!: NameVerificationFlags;
}

@ObjectType({
  implements: NameVerificationSource,
  description: 'An account holder name (only for accounts shared with the app).',
})
export class HolderNameSource extends NameVerificationSource {
  @Field(() => ID)
  accountId!: string;

  @Field(() => String, { nullable: true })
  accountName?: string;

  @Field(() => String, { nullable: true })
  formattedAccount?: string;

  @Field(() => String, {
    description: 'Holder name(s) exactly as the bank supplies them; joint accounts list several.',
  })
  holder!: string;

  @Field(() => Boolean, { nullable: true, description: 'True when the bank says there are holders it did not list.' })
  hasUnlistedHolders?: boolean;
}

@ObjectType({
  implements: NameVerificationSource,
  description: 'The party (person, business or trust) the bank associates with the login.',
})
export class PartyNameSource extends NameVerificationSource {
  @Field(() => String, { description: 'The party name held by the institution.' })
  value!: string;

  @Field(() => [ID], { description: 'The banks that reported this party (`conn_…`, as `Account.bank.id`).' })
  bankIds!: string[];

  @Field(() => [ID], { deprecationReason: 'Use `bankIds`. Removed in the next version.' })
  connectionIds!: string[];
}

@ObjectType({ description: 'The name that was verified, as sent.' })
export class VerifiedName {
  @Field(() => String)
  familyName!: string;

  @Field(() => String, { nullable: true })
  givenName?: string;

  @Field(() => String, { nullable: true })
  middleName?: string;
}

@ObjectType({
  description:
    'Result of a name verification. No match is an empty `sources` list, not an error. Never cached or stored by the gateway.',
})
export class NameVerification {
  @Field(() => [NameVerificationSource])
  sources!: NameVerificationSource[];

  @Field(() => VerifiedName)
  name!: VerifiedName;
}
