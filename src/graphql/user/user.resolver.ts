import { Ctx, Query, Resolver } from 'type-graphql';
import { parseInstant } from '../../lib/instant.js';
import type { GatewayContext } from '../context.js';
import { User } from './user.type.js';

@Resolver()
export class UserResolver {
  @Query(() => User, { description: 'The signed-in user, as the platform knows them (`GET /v1/me`).' })
  async me(@Ctx() context: GatewayContext): Promise<User> {
    const me = await context.loaders.me.load('me');
    return {
      id: me._id,
      email: me.email,
      preferredName: me.preferred_name,
      accessGrantedAt: parseInstant(me.access_granted_at),
    };
  }
}
