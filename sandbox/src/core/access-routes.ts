import { sendJson } from '@open-finance-gateway/common/http/respond';
import type { SandboxAccount } from '../model/core-model.js';
import { platformError, type SandboxRequest, type SandboxRouter } from '../sandbox-http.js';
import type { SandboxState } from '../sandbox-state.js';
import { authenticateUser } from './user-auth.js';

const REFRESH_INTERVAL_MS = 5 * 60_000;

/** Revoking the token, and manual refresh with the platform's once-per-5-minutes rule. */
export function registerAccessRoutes(
  router: SandboxRouter,
  state: SandboxState,
  onRefreshed: (userId: string, accounts: SandboxAccount[]) => void,
): void {
  router.on('DELETE', '/v1/token', (request) => {
    const auth = authenticateUser(request, state);
    if (!auth) return;
    state.tokens.get(auth.token)!.revoked = true;
    sendJson(request.res, 200, { success: true });
  });

  const refresh = (request: SandboxRequest) => {
    const auth = authenticateUser(request, state);
    if (!auth) return;
    const target = request.params.id;
    const visible = state.visibleAccounts(auth.user._id);
    if (
      target !== undefined &&
      !visible.some((account) => account._id === target || account.connection._id === target)
    ) {
      return platformError(request, 404, 'Not found');
    }
    if (auth.user.sandboxRefreshForbidden) return platformError(request, 403, auth.user.sandboxRefreshForbidden);
    const now = state.clock();
    const last = state.lastRefreshAt.get(auth.user._id);
    if (last !== undefined && now - last < REFRESH_INTERVAL_MS)
      return platformError(request, 429, 'Refresh initiated within last 5 minutes');
    state.lastRefreshAt.set(auth.user._id, now);
    const stamp = new Date(now).toISOString();
    const refreshed = visible.filter(
      (account) =>
        account.status === 'ACTIVE' &&
        (target === undefined || account._id === target || account.connection._id === target),
    );
    for (const account of refreshed) account.refreshed = { ...account.refreshed, balance: stamp, transactions: stamp };
    sendJson(request.res, 200, { success: true });
    // The refresh itself is asynchronous on the platform: its results arrive as webhooks.
    setImmediate(() => onRefreshed(auth.user._id, refreshed));
  };
  router.on('POST', '/v1/refresh', refresh);
  router.on('POST', '/v1/refresh/:id', refresh);
}
