import { sendJson } from '@open-finance-gateway/common/http/respond';
import type { SandboxRouter } from '../sandbox-http.js';
import type { SandboxState } from '../sandbox-state.js';
import { authenticateUser } from './user-auth.js';

export function registerUserRoutes(router: SandboxRouter, state: SandboxState): void {
  router.on('GET', '/v1/me', (request) => {
    const auth = authenticateUser(request, state);
    if (!auth) return;
    const grantedAt = state.tokens.get(auth.token)!.grantedAt;
    sendJson(request.res, 200, {
      success: true,
      item: {
        _id: auth.user._id,
        email: auth.user.email,
        preferred_name: auth.user.preferred_name,
        access_granted_at: new Date(grantedAt).toISOString(),
      },
    });
  });
}
