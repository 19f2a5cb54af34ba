import DataLoader from 'dataloader';
import type { CoreClient } from '../upstream/core-client.js';
import type { PlatformUser } from '../upstream/platform-types.js';

/** `GET /v1/me`, at most once per request however many fields ask. */
export function createUserLoader(core: CoreClient, accessToken: string): DataLoader<'me', PlatformUser> {
  return new DataLoader(async (keys) => {
    const me = await core.getMe(accessToken);
    return keys.map(() => me);
  });
}
