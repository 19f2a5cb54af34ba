import { sendJson } from '@open-finance-gateway/common/http/respond';
import type { SandboxCategory } from '../data/categories.js';
import { sandboxId } from '../data/sandbox-ids.js';
import type { SandboxConnection } from '../model/core-model.js';
import { platformError, type SandboxRouter } from '../sandbox-http.js';
import type { SandboxState } from '../sandbox-state.js';
import { authenticateApp } from './app-auth.js';
import { authenticateUser } from './user-auth.js';

/**
 * The rest of what the live platform serves and its SDK calls: connections and categories (app
 * auth), the user's parties, one transaction by id, and revoking a whole bank authorisation.
 */
export function registerCatalogRoutes(
  router: SandboxRouter,
  state: SandboxState,
  connections: SandboxConnection[],
  categories: Map<string, SandboxCategory>,
): void {
  router.on('GET', '/v1/connections', (request) => {
    if (authenticateApp(request, state)) sendJson(request.res, 200, { success: true, items: connections });
  });
  router.on('GET', '/v1/connections/:id', (request) => {
    if (!authenticateApp(request, state)) return;
    const connection = connections.find((candidate) => candidate._id === request.params.id);
    if (!connection) return platformError(request, 404, 'Not found');
    sendJson(request.res, 200, { success: true, item: connection });
  });

  router.on('GET', '/v1/categories', (request) => {
    if (authenticateApp(request, state)) sendJson(request.res, 200, { success: true, items: [...categories.values()] });
  });
  router.on('GET', '/v1/categories/:id', (request) => {
    if (!authenticateApp(request, state)) return;
    const category = [...categories.values()].find((candidate) => candidate._id === request.params.id);
    if (!category) return platformError(request, 404, 'Not found');
    sendJson(request.res, 200, { success: true, item: category });
  });

  // One party per bank connection the user shared, as the bank names them.
  router.on('GET', '/v1/parties', (request) => {
    const auth = authenticateUser(request, state);
    if (!auth) return;
    const shared = state.visibleAccounts(auth.user._id);
    const items = state.parties
      .filter((party) => party.userId === auth.user._id)
      .flatMap((party) => {
        const account = shared.find((candidate) => candidate.connection._id === party.connectionId);
        if (!account) return [];
        return [
          {
            _id: sandboxId('party', `${party.userId}:${party.connectionId}`),
            _authorisation: account._authorisation,
            _connection: party.connectionId,
            _user: party.userId,
            type: 'INDIVIDUAL',
            name: { value: party.value },
            email_addresses: [{ subtype: 'PRIMARY', verified: false, value: auth.user.email }],
          },
        ];
      });
    sendJson(request.res, 200, { success: true, items });
  });

  router.on('GET', '/v1/transactions/:id', (request) => {
    const auth = authenticateUser(request, state);
    if (!auth) return;
    const visible = new Set(state.visibleAccounts(auth.user._id).map((account) => account._id));
    const transaction = state.transactions.find(
      (row) => row._id === request.params.id && row._user === auth.user._id && visible.has(row._account),
    );
    if (!transaction) return platformError(request, 404, 'Not found');
    sendJson(request.res, 200, { success: true, item: transaction });
  });

  // Every account behind one bank login stops being shared with the app.
  router.on('DELETE', '/v1/authorisations/:id', (request) => {
    const auth = authenticateUser(request, state);
    if (!auth) return;
    const accounts = state
      .visibleAccounts(auth.user._id)
      .filter((account) => account._authorisation === request.params.id);
    if (accounts.length === 0) return platformError(request, 404, 'Not found');
    for (const account of accounts) account.sandboxShared = false;
    sendJson(request.res, 200, { success: true });
  });
}
