import { Field, GraphQLISODateTime, ID, ObjectType } from 'type-graphql';

@ObjectType({ description: 'The signed-in platform user.' })
export class User {
  @Field(() => ID)
  id!: string;

  @Field(() => String, { nullable: true, description: 'Present when the app has the email scope.' })
  email?: string;

  @Field(() => String, { nullable: true })
  preferredName?: string;

  @Field(() => GraphQLISODateTime, { nullable: true, description: 'When the user granted this app access.' })
  accessGrantedAt?: Date;
}
