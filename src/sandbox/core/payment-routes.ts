import { sendJson } from '../../lib/http/respond.js';
import { platformError, type SandboxRouter } from '../sandbox-http.js';
import type { SandboxState } from '../sandbox-state.js';
import type { SandboxPayment, SandboxTransfer } from './payment-model.js';
import { authenticateUser } from './user-auth.js';

function strip<T extends { sandboxUserId: string }>({ sandboxUserId: _owner, ...rest }: T) {
  return rest;
}

/** `GET /v1/payments/{id}` and `GET /v1/transfers/{id}`: the current object, for webhook receivers. */
export function registerPaymentRoutes(
  router: SandboxRouter,
  state: SandboxState,
  headerPrefix: string,
  payments: Map<string, SandboxPayment>,
  transfers: Map<string, SandboxTransfer>,
): void {
  router.on('GET', '/v1/payments/:id', (request) => {
    const auth = authenticateUser(request, state, headerPrefix);
    if (!auth) return;
    const payment = payments.get(request.params.id!);
    if (!payment || payment.sandboxUserId !== auth.user._id) return platformError(request, 404, 'Not found');
    sendJson(request.res, 200, { success: true, item: strip(payment) });
  });
  router.on('GET', '/v1/transfers/:id', (request) => {
    const auth = authenticateUser(request, state, headerPrefix);
    if (!auth) return;
    const transfer = transfers.get(request.params.id!);
    if (!transfer || transfer.sandboxUserId !== auth.user._id) return platformError(request, 404, 'Not found');
    sendJson(request.res, 200, { success: true, item: strip(transfer) });
  });
  // Designed for TRANSACTION webhooks: fetch the new rows by id.
  router.on('POST', '/v1/transactions/ids', (request) => {
    const auth = authenticateUser(request, state, headerPrefix);
    if (!auth) return;
    let ids: unknown;
    try {
      ids = JSON.parse(request.rawBody.toString('utf8'));
    } catch {
      ids = undefined;
    }
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string'))
      return platformError(request, 400, 'Body must be a JSON array of transaction ids');
    const wanted = new Set(ids as string[]);
    const visible = new Set(state.visibleAccounts(auth.user._id).map((account) => account._id));
    sendJson(request.res, 200, {
      success: true,
      items: state.transactions.filter(
        (t) => wanted.has(t._id) && t._user === auth.user._id && visible.has(t._account),
      ),
    });
  });
}
