import type { AuthChecker } from 'type-graphql';
import type { GatewayContext } from './context.js';
import { ErrorCode, gatewayError } from './errors.js';

/** What a field may demand with `@Authorized(...)`: checked in one place, so no new field can forget it. */
export const Permission = {
  /** Creating or cancelling payments and transfers. */
  MOVE_MONEY: 'MOVE_MONEY',
} as const;

/**
 * The one check behind every money-moving field. Today it requires a session that is still live
 * (not ended in another tab or instance since the request began). The accreditation rule that
 * MFA is renewed before any payment (fresh within two hours, else step-up) belongs here too, so
 * that every `@Authorized(Permission.MOVE_MONEY)` field gets it at once.
 */
export const authChecker: AuthChecker<GatewayContext> = async ({ context }, permissions) => {
  for (const permission of permissions) {
    if (permission !== Permission.MOVE_MONEY) throw new Error(`unknown permission ${permission}`);
    if (!(await context.session.isLive()))
      throw gatewayError(ErrorCode.UNAUTHENTICATED, 'Your session has ended. Sign in again to move money.');
  }
  return true;
};
