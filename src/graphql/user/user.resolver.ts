import { Ctx, Query, Resolver } from 'type-graphql';
import type { GatewayContext } from '../context.js';
import { User } from './user.type.js';

@Resolver()
export class UserResolver {
  @Query(() => User, { description: 'The signed-in user, as the platform knows them (`GET /v1/me`).' })
  async me(@Ctx() context: GatewayContext): Promise<User> {
    const me = await context.loaders.me.load('me');
    const granted = me.access_granted_at ? new Date(me.access_granted_at) : undefined;
    return {
      id: me._id,
      email: me.email,
      preferredName: me.preferred_name,
      accessGrantedAt: granted && !Number.isNaN(granted.getTime()) ? granted : undefined,
    };
  }
}
