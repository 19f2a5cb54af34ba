import { sendJson } from '@open-finance-gateway/common/http/respond';
import { TokenBucket } from '@open-finance-gateway/common/token-bucket';
import type { PaymentBook } from '../model/payment-model.js';
import { parseBody, platformError, type SandboxRequest, type SandboxRouter } from '../sandbox-http.js';
import type { SandboxState } from '../sandbox-state.js';
import { IdempotencyBook } from './idempotency.js';
import { checkIrdPayment, checkPayment, checkTransfer, type Checked } from './payment-rules.js';
import { authenticateUser } from './user-auth.js';

const DAY_MS = 86_400_000;
/** `POST /v1/payments` and `/v1/transfers` share one quota per user. */
const POSTS_PER_USER_PER_MINUTE = 200;

function strip<T extends { sandboxUserId: string }>({ sandboxUserId: _owner, ...rest }: T) {
  return rest;
}

/** `start`/`end` query bounds (ISO; default: the last 30 days), or a 400 message. */
function dateRange(request: SandboxRequest, now: number): Checked<{ start: number; end: number }> {
  const parse = (name: string, fallback: number): number | undefined => {
    const value = request.url.searchParams.get(name);
    if (value === null) return fallback;
    const time = Date.parse(value);
    return Number.isNaN(time) ? undefined : time;
  };
  const start = parse('start', now - 30 * DAY_MS);
  const end = parse('end', now);
  if (start === undefined || end === undefined) return { ok: false, message: 'start and end must be ISO 8601 dates' };
  return { ok: true, value: { start, end } };
}

/**
 * Payments and transfers as the live platform serves them: list, read, create (validated, with
 * idempotency keys and the per-user quota), cancel.
 */
export function registerPaymentRoutes(router: SandboxRouter, state: SandboxState, controls: PaymentBook): void {
  registerReads(router, state, controls);
  registerCreations(router, state, controls);
  registerCancel(router, state, controls);
}

function registerReads(router: SandboxRouter, state: SandboxState, controls: PaymentBook): void {
  const list =
    <T extends { sandboxUserId: string; created_at: string }>(items: Iterable<T>) =>
    (request: SandboxRequest) => {
      const auth = authenticateUser(request, state);
      if (!auth) return;
      const range = dateRange(request, state.clock());
      if (!range.ok) return platformError(request, 400, range.message);
      const { start, end } = range.value;
      const found = [...items].filter((item) => {
        const created = Date.parse(item.created_at);
        return item.sandboxUserId === auth.user._id && created >= start && created <= end;
      });
      sendJson(request.res, 200, { success: true, items: found.map(strip) });
    };
  router.on('GET', '/v1/payments', (request) => list(controls.payments.values())(request));
  router.on('GET', '/v1/transfers', (request) => list(controls.transfers.values())(request));

  router.on('GET', '/v1/payments/:id', (request) => {
    const auth = authenticateUser(request, state);
    if (!auth) return;
    const payment = controls.payments.get(request.params.id!);
    if (!payment || payment.sandboxUserId !== auth.user._id) return platformError(request, 404, 'Not found');
    sendJson(request.res, 200, { success: true, item: strip(payment) });
  });
  router.on('GET', '/v1/transfers/:id', (request) => {
    const auth = authenticateUser(request, state);
    if (!auth) return;
    const transfer = controls.transfers.get(request.params.id!);
    if (!transfer || transfer.sandboxUserId !== auth.user._id) return platformError(request, 404, 'Not found');
    sendJson(request.res, 200, { success: true, item: strip(transfer) });
  });
}

function registerCreations(router: SandboxRouter, state: SandboxState, controls: PaymentBook): void {
  const idempotency = new IdempotencyBook(state.clock);
  const quotas = new Map<string, TokenBucket>();
  const withinQuota = (userId: string): boolean => {
    let bucket = quotas.get(userId);
    if (!bucket) quotas.set(userId, (bucket = new TokenBucket(POSTS_PER_USER_PER_MINUTE, 60_000, state.clock)));
    return bucket.take();
  };
  /** Auth, the shared quota, then the idempotency book around the creation itself. */
  const creation =
    (create: (userId: string, body: unknown) => { status: number; body: unknown }) => (request: SandboxRequest) => {
      const auth = authenticateUser(request, state);
      if (!auth) return;
      if (!withinQuota(auth.user._id)) return platformError(request, 429, 'Rate limit exceeded');
      idempotency.answer(request, auth.user._id, () => create(auth.user._id, parseBody(request)));
    };
  const refused = (message: string) => ({ status: 400, body: { success: false, message } });

  const createPayment = (userId: string, checked: ReturnType<typeof checkPayment>) => {
    if (!checked.ok) return refused(checked.message);
    const { from, to, amount, meta } = checked.value;
    const payment = controls.createPayment(userId, {
      from: from._id,
      toName: to.name,
      toAccount: to.account_number,
      amount,
      meta,
    });
    controls.settlePaymentLater(payment._id);
    return { status: 200, body: { success: true, item: strip(payment), item_id: payment._id, status: payment.status } };
  };
  router.on(
    'POST',
    '/v1/payments',
    creation((userId, body) =>
      createPayment(userId, checkPayment(body, state.visibleAccounts(userId), controls.sentToday(userId))),
    ),
  );
  router.on(
    'POST',
    '/v1/payments/ird',
    creation((userId, body) =>
      createPayment(userId, checkIrdPayment(body, state.visibleAccounts(userId), controls.sentToday(userId))),
    ),
  );
  router.on(
    'POST',
    '/v1/transfers',
    creation((userId, body) => {
      const checked = checkTransfer(body, state.visibleAccounts(userId));
      if (!checked.ok) return refused(checked.message);
      const { from, to, amount } = checked.value;
      const transfer = controls.createTransfer(userId, amount, { from: from._id, to: to._id });
      controls.settleTransferLater(transfer._id);
      return {
        status: 200,
        body: { success: true, item: strip(transfer), item_id: transfer._id, status: transfer.status },
      };
    }),
  );
}

function registerCancel(router: SandboxRouter, state: SandboxState, controls: PaymentBook): void {
  // The specification's path, and the one the SDK calls.
  const cancel = (request: SandboxRequest) => {
    const auth = authenticateUser(request, state);
    if (!auth) return;
    const payment = controls.payments.get(request.params.id!);
    if (!payment || payment.sandboxUserId !== auth.user._id) return platformError(request, 404, 'Not found');
    if (controls.cancelPayment(payment._id) === 'not-cancellable')
      return platformError(request, 400, `Payment is ${payment.status} and can no longer be cancelled`);
    sendJson(request.res, 200, { success: true });
  };
  router.on('PUT', '/v1/payments/:id/cancel', cancel);
  router.on('PUT', '/v1/payments/:id', cancel);
}
