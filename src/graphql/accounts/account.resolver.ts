import { Arg, Ctx, ID, Query, Resolver } from 'type-graphql';
import type { GatewayContext } from '../context.js';
import { toAccount } from './account.mapper.js';
import { Account } from './account.type.js';

@Resolver(() => Account)
export class AccountResolver {
  @Query(() => [Account], {
    description: 'Every connected account the user shared with the app, whatever its status (`GET /v1/accounts`).',
  })
  async accounts(@Ctx() context: GatewayContext): Promise<Account[]> {
    const accounts = await context.loaders.accounts.load('all');
    return accounts.map((account) => toAccount(account, context.links.reconnectUrl));
  }

  @Query(() => Account, {
    nullable: true,
    description: 'One account by id; null when it does not exist or access was revoked.',
  })
  async account(@Arg('id', () => ID) id: string, @Ctx() context: GatewayContext): Promise<Account | null> {
    const account = await context.loaders.account.load(id);
    return account ? toAccount(account, context.links.reconnectUrl) : null;
  }
}
