import { Field, Float, InputType } from 'type-graphql';
import { TransactionDirection } from './enrichment.type.js';

@InputType({ description: 'One transaction description to enrich.' })
export class EnrichmentQueryInput {
  @Field(() => String, { nullable: true, description: 'Your correlation id; echoed unchanged in the result.' })
  id?: string;

  @Field(() => String, { description: 'The full description as supplied by the bank.' })
  description!: string;

  @Field(() => String, {
    nullable: true,
    description: 'The bank the description came from (`conn_…`, as `Account.bank.id`). Strongly recommended.',
  })
  bankId?: string;

  @Field(() => String, { nullable: true, deprecationReason: 'Use `bankId`. Removed in the next version.' })
  connectionId?: string;

  @Field(() => Float, { nullable: true, description: 'Positive for money in, negative for money out.' })
  amount?: number;

  @Field(() => TransactionDirection, { nullable: true, description: 'Helps when the amount is unknown.' })
  direction?: TransactionDirection;
}
