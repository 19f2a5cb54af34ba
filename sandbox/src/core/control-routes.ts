import { sendJson } from '@open-finance-gateway/common/http/respond';
import { parseBody, platformError, type SandboxRouter } from '../sandbox-http.js';
import type { SandboxState } from '../sandbox-state.js';

/**
 * Sandbox-only controls for demos: things that happen outside the app on the live platform (a
 * bank connection breaking, the user revoking access elsewhere). Not part of the platform API.
 */
export function registerControlRoutes(
  router: SandboxRouter,
  state: SandboxState,
  controls: {
    setAccountStatus(id: string, status: 'ACTIVE' | 'INACTIVE'): boolean;
    revokeUserTokens(userId: string): number;
  },
): void {
  router.on('POST', '/sandbox/accounts/:id/status', (request) => {
    const status = (parseBody(request) as { status?: unknown } | undefined)?.status;
    if (status !== 'ACTIVE' && status !== 'INACTIVE')
      return platformError(request, 400, 'status must be ACTIVE or INACTIVE');
    if (!controls.setAccountStatus(request.params.id!, status)) return platformError(request, 404, 'Not found');
    sendJson(request.res, 200, { success: true });
  });
  router.on('POST', '/sandbox/users/:id/revoke', (request) => {
    if (!state.users.has(request.params.id!)) return platformError(request, 404, 'Not found');
    sendJson(request.res, 200, { success: true, revoked: controls.revokeUserTokens(request.params.id!) });
  });
}
