import type { AuthChecker } from 'type-graphql';
import { reauthentication } from './access-gate.js';
import type { GatewayContext } from './context.js';
import { ErrorCode, gatewayError } from './errors.js';

/** What a field may demand with `@Authorized(...)`: checked in one place, so no new field can forget it. */
export const Permission = {
  /** Creating or cancelling payments and transfers. */
  MOVE_MONEY: 'MOVE_MONEY',
} as const;

/**
 * The one check behind every money-moving field, so that every `@Authorized(Permission.MOVE_MONEY)`
 * field gets all of it: an app configured read-only (`MFA_POLICY=read-only`) moves no money; the
 * accreditation rules renew MFA before any payment, so a second factor older than
 * MFA_MAX_AGE_SECONDS is `STEP_UP_REQUIRED`; and the session must still be live (not ended in
 * another tab or instance since the request began). The access gate has already required a
 * second factor and a connection for the root field.
 */
export const authChecker: AuthChecker<GatewayContext> = async ({ context }, permissions) => {
  for (const permission of permissions) {
    if (permission !== Permission.MOVE_MONEY) throw new Error(`unknown permission ${permission}`);
    const { access } = context;
    if (access.policy === 'read-only')
      throw gatewayError(ErrorCode.FORBIDDEN, 'This app is read-only: it cannot make payments or transfers.', {
        reason: 'READ_ONLY_APP',
      });
    if (access.mfa !== 'fresh')
      throw gatewayError(
        access.mfa === 'none' ? ErrorCode.MFA_REQUIRED : ErrorCode.STEP_UP_REQUIRED,
        access.mfa === 'none'
          ? 'Moving money needs a sign-in with a second factor.'
          : 'Confirm it is you before moving money: your last multi-factor sign-in is too old.',
        reauthentication(access, access.mfa === 'none' ? 'signIn' : 'stepUp'),
      );
    if (!(await context.session.isLive()))
      throw gatewayError(ErrorCode.UNAUTHENTICATED, 'Your session has ended. Sign in again to move money.');
  }
  return true;
};
