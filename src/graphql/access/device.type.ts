import { Field, GraphQLISODateTime, ID, ObjectType, registerEnumType } from 'type-graphql';

export enum DeviceKind {
  BROWSER = 'BROWSER',
  APP = 'APP',
}

registerEnumType(DeviceKind, {
  name: 'DeviceKind',
  description:
    'How a device signed in: `BROWSER`, with the session cookie; `APP`, a native or server client with access tokens of the app\u2019s identity provider.',
});

@ObjectType({
  description:
    'A device the user is signed in on: a browser\u2019s session, or an app\u2019s token family (one per sign-in, kept across token refreshes).',
})
export class SignedInDevice {
  @Field(() => ID, { description: 'Opaque; pass it to `endDevice`.' })
  id!: string;

  @Field(() => DeviceKind)
  kind!: DeviceKind;

  @Field(() => String, {
    nullable: true,
    description: 'The app\u2019s client id at the identity provider (`APP` only).',
  })
  client?: string;

  @Field(() => GraphQLISODateTime)
  signedInAt!: Date;

  @Field(() => GraphQLISODateTime, { description: 'Last use, to within a minute.' })
  lastUsedAt!: Date;

  @Field(() => Boolean, { description: 'The device making this request.' })
  current!: boolean;
}
