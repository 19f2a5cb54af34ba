import { sha256Hex } from '@open-finance-gateway/common/ids';
import type { Session, SessionManager } from '../../auth/session-manager.js';
import type { GatewayContext } from '../../graphql/context.js';

/** A device's id for clients: a digest of its session key, which itself never leaves the gateway. */
const deviceIdOf = (sessionKey: string) => sha256Hex(`device|${sessionKey}`).slice(0, 32);

/**
 * The user's signed-in devices as this request's session sees them: every live session of the
 * user (a browser's, or an app's token family), and ending one or all. `state.ended` tells the
 * transport that this request's own sign-in ended (its cookie is cleared).
 */
export function deviceControls(
  sessions: SessionManager,
  session: Session,
  state: { ended: boolean },
): Pick<GatewayContext['session'], 'devices' | 'endDevice' | 'endAll'> {
  return {
    async devices() {
      return (await sessions.listOfUser(session.userId)).map((device) => ({
        id: deviceIdOf(device.sessionKey),
        client: device.client?.id,
        signedInAt: device.createdAt,
        lastUsedAt: device.lastSeenAt,
        current: device.sessionKey === session.sessionKey,
      }));
    },
    async endDevice(id) {
      const found = (await sessions.listOfUser(session.userId)).find((device) => deviceIdOf(device.sessionKey) === id);
      if (!found) return false;
      await sessions.endOne(session.userId, found);
      if (found.sessionKey === session.sessionKey) state.ended = true;
      return true;
    },
    async endAll() {
      state.ended = true;
      await sessions.endAllForUser(session.userId);
    },
  };
}
