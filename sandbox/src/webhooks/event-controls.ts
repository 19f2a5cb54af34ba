import { sendJson } from '@open-finance-gateway/common/http/respond';
import { isKnownWebhook, WEBHOOK_EVENTS, type WebhookCode } from '@open-finance-gateway/common/webhook-events';
import { sandboxId } from '../data/sandbox-ids.js';
import { parseBody, platformError, type SandboxRouter } from '../sandbox-http.js';
import type { SandboxState } from '../sandbox-state.js';
import type { DeliveryEngine } from './delivery-engine.js';
import type { WorldChanges } from './world-changes.js';

/** An item id of the right kind for a fired webhook, unless the caller gave one. */
const ITEM_PREFIX: Record<keyof typeof WEBHOOK_EVENTS, string> = {
  TOKEN: 'user_token',
  ACCOUNT: 'acc',
  TRANSACTION: 'acc',
  INCOME: 'income',
  TRANSFER: 'transfer',
  PAYMENT: 'payment',
};

/**
 * Sandbox-only controls for webhooks: fire any type and code of the platform's table for a user
 * (with fields of your own, or plausible defaults), and make the world change the way it does on
 * the live platform, each change announced by its own webhook. Not part of the platform API.
 */
export function registerEventControls(
  router: SandboxRouter,
  state: SandboxState,
  engine: DeliveryEngine,
  changes: WorldChanges,
): void {
  const userOf = (id: unknown) => (typeof id === 'string' && state.users.has(id) ? id : undefined);

  router.on('POST', '/sandbox/webhooks/fire', (request) => {
    const body = (parseBody(request) ?? {}) as Record<string, unknown>;
    const user = userOf(body.user);
    if (!user) return platformError(request, 400, 'user must be a sandbox user id');
    if (!isKnownWebhook(body.webhook_type, body.webhook_code))
      return platformError(
        request,
        400,
        `webhook_type and webhook_code must be one of: ${Object.entries(WEBHOOK_EVENTS)
          .map(([type, { codes }]) => `${type} ${codes.join('|')}`)
          .join('; ')}`,
      );
    const fields =
      typeof body.fields === 'object' && body.fields !== null ? (body.fields as Record<string, unknown>) : {};
    const type = body.webhook_type;
    const before = engine.events.length;
    engine.emit(user, type, body.webhook_code as WebhookCode, {
      item_id: sandboxId(ITEM_PREFIX[type], `fired:${before}:${state.clock()}`),
      ...fields,
    });
    sendJson(request.res, 200, { success: true, deliveries: engine.events.length - before });
  });

  router.on('POST', '/sandbox/users/:id/accounts', (request) => {
    const user = userOf(request.params.id);
    if (!user) return platformError(request, 404, 'Not found');
    const name = (parseBody(request) as { name?: unknown } | undefined)?.name;
    const { account, transactionIds } = changes.connectAccount(user, typeof name === 'string' ? name : undefined);
    sendJson(request.res, 200, { success: true, item_id: account._id, new_transaction_ids: transactionIds });
  });

  router.on('DELETE', '/sandbox/accounts/:id', (request) => {
    if (!changes.removeAccount(request.params.id!)) return platformError(request, 404, 'Not found');
    sendJson(request.res, 200, { success: true });
  });

  router.on('DELETE', '/sandbox/transactions/:id', (request) => {
    if (!changes.removeTransaction(request.params.id!)) return platformError(request, 404, 'Not found');
    sendJson(request.res, 200, { success: true });
  });

  router.on('POST', '/sandbox/users/:id/income', (request) => {
    const user = userOf(request.params.id);
    if (!user) return platformError(request, 404, 'Not found');
    const code = (parseBody(request) as { code?: unknown } | undefined)?.code;
    if (code !== 'CREATE' && code !== 'UPDATE' && code !== 'DELETE')
      return platformError(request, 400, 'code must be CREATE, UPDATE or DELETE');
    sendJson(request.res, 200, { success: true, item_id: changes.incomeChanged(user, code) });
  });
}
