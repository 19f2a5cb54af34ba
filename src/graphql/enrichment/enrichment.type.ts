import { Field, Float, ID, ObjectType, registerEnumType } from 'type-graphql';

export enum TransactionDirection {
  DEBIT = 'DEBIT',
  CREDIT = 'CREDIT',
}

/*
 * The result types are plain data with no field middleware or @Authorized fields, so they use
 * graphql-js's default property resolver (`simpleResolvers`) instead of type-graphql's wrapper:
 * one of these is built per lookup and a request may carry 1,000. No field here may need @Authorized or middleware (type-graphql would skip them silently):
 * test/graphql/simple-resolvers.test.ts fails if one does.
 */

registerEnumType(TransactionDirection, {
  name: 'TransactionDirection',
  description: 'Money out (DEBIT) or in (CREDIT).',
});

@ObjectType({
  simpleResolvers: true,
  description: 'A category group within one grouping (for example `personal_finance` → Food).',
})
export class CategoryGroup {
  @Field(() => String, { description: 'Name of the grouping this group belongs to, such as `personal_finance`.' })
  grouping!: string;

  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;
}

@ObjectType({
  simpleResolvers: true,
  description: 'A base (NZFCC) category.',
})
export class Category {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => [CategoryGroup], { description: 'The category\u2019s group in every grouping the platform returned.' })
  groups!: CategoryGroup[];

  @Field(() => CategoryGroup, {
    nullable: true,
    description: 'Shortcut for the group in the `personal_finance` grouping.',
  })
  personalFinance?: CategoryGroup;
}

@ObjectType({
  simpleResolvers: true,
  description: 'The merchant a description was matched to.',
})
export class Merchant {
  @Field(() => ID, { nullable: true })
  id?: string;

  @Field(() => String, { nullable: true })
  name?: string;

  @Field(() => String, {
    nullable: true,
    description: 'URL of the merchant logo (a placeholder image when the platform has none).',
  })
  logo?: string;

  @Field(() => String, { nullable: true })
  website?: string;
}

@ObjectType({
  simpleResolvers: true,
  description: 'One candidate match for a description.',
})
export class EnrichmentMatch {
  @Field(() => Float, { description: 'From 0 to 0.99; the platform currently returns at least 0.5.' })
  confidence!: number;

  @Field(() => Category)
  category!: Category;

  @Field(() => Merchant, {
    nullable: true,
    description: 'Present on most matches; absent when only a category was recognised.',
  })
  merchant?: Merchant;
}

@ObjectType({
  simpleResolvers: true,
  description: 'Enrichment of one transaction description: the best match inline, and every candidate in `matches`.',
})
export class EnrichmentResult {
  @Field(() => String, { nullable: true, description: 'The caller\u2019s correlation id, echoed unchanged.' })
  id?: string;

  @Field(() => String, { description: 'The description as it was looked up.' })
  description!: string;

  @Field(() => Float, { nullable: true, description: 'Confidence of the best match; null when nothing matched.' })
  confidence?: number;

  @Field(() => Category, { nullable: true, description: 'Category of the best match; null when nothing matched.' })
  category?: Category;

  @Field(() => Merchant, { nullable: true, description: 'Merchant of the best match, when it has one.' })
  merchant?: Merchant;

  @Field(() => [EnrichmentMatch], {
    description: 'Every candidate the platform returned, best first. Empty when nothing matched.',
  })
  matches!: EnrichmentMatch[];
}
