import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { GatewayContext } from '../context.js';
import { DeviceKind, SignedInDevice } from './device.type.js';

/** Consumer controls over where the user is signed in: see each device, end one, or end them all. */
@Resolver()
export class DeviceResolver {
  @Query(() => [SignedInDevice], {
    description: 'Where the user is signed in: browsers (session cookie) and apps (access tokens), most recent first.',
  })
  async devices(@Ctx() context: GatewayContext): Promise<SignedInDevice[]> {
    const devices = await context.session.devices();
    return devices
      .map((device) => ({
        ...device,
        kind: device.client === undefined ? DeviceKind.BROWSER : DeviceKind.APP,
        signedInAt: new Date(device.signedInAt),
        lastUsedAt: new Date(device.lastUsedAt),
      }))
      .sort((a, b) => b.lastUsedAt.getTime() - a.lastUsedAt.getTime());
  }

  @Mutation(() => Boolean, {
    description:
      'Ends one device\u2019s sign-in: a browser\u2019s session, or an app\u2019s token family (every access token it holds stops working at once, on every instance; its sockets close with 4401). False when there is no such device.',
  })
  async endDevice(@Arg('id', () => ID) id: string, @Ctx() context: GatewayContext): Promise<boolean> {
    const ended = await context.session.endDevice(id);
    if (ended) context.logger.info({ userId: context.user.id }, 'device signed out by the user');
    return ended;
  }

  @Mutation(() => Boolean, {
    description:
      'Signs the user out everywhere: every browser session ends and every access token issued until now stops working, on every instance. The bank connection stays (use `revokeAllAccess` to end it too).',
  })
  async signOutEverywhere(@Ctx() context: GatewayContext): Promise<boolean> {
    await context.session.endAll();
    context.logger.info({ userId: context.user.id }, 'signed out everywhere by the user');
    return true;
  }
}
