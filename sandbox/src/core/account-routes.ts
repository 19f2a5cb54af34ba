import { sendJson } from '@open-finance-gateway/common/http/respond';
import type { SandboxAccount } from '../model/core-model.js';
import { platformError, type SandboxRequest, type SandboxRouter } from '../sandbox-http.js';
import type { SandboxState } from '../sandbox-state.js';
import { authenticateUser } from './user-auth.js';

/** The account as the platform serves it: sandbox bookkeeping fields stripped. */
export function publicAccount(account: SandboxAccount) {
  const { sandboxShared: _shared, sandboxUserId: _user, ...rest } = account;
  // `_credentials`: the deprecated name of `_authorisation`, still served and typed by the SDK.
  return { ...rest, _credentials: account._authorisation };
}

/** Finds one of the user's visible accounts, answering 404 otherwise. */
export function visibleAccount(
  request: SandboxRequest,
  state: SandboxState,
  userId: string,
  accountId: string,
): SandboxAccount | undefined {
  const account = state.accounts.get(accountId);
  if (!account || account.sandboxUserId !== userId || !account.sandboxShared) {
    platformError(request, 404, 'Not found');
    return undefined;
  }
  return account;
}

export function registerAccountRoutes(router: SandboxRouter, state: SandboxState): void {
  router.on('GET', '/v1/accounts', (request) => {
    const auth = authenticateUser(request, state);
    if (!auth) return;
    sendJson(request.res, 200, { success: true, items: state.visibleAccounts(auth.user._id).map(publicAccount) });
  });

  router.on('GET', '/v1/accounts/:id', (request) => {
    const auth = authenticateUser(request, state);
    const account = auth && visibleAccount(request, state, auth.user._id, request.params.id!);
    if (account) sendJson(request.res, 200, { success: true, item: publicAccount(account) });
  });

  // Revokes the app's access to one account: it disappears from every listing.
  router.on('DELETE', '/v1/accounts/:id', (request) => {
    const auth = authenticateUser(request, state);
    const account = auth && visibleAccount(request, state, auth.user._id, request.params.id!);
    if (!account) return;
    account.sandboxShared = false;
    sendJson(request.res, 200, { success: true });
  });
}
