import { sendJson } from '@open-finance-gateway/common/http/respond';
import { isWebhookType, type WebhookType } from '@open-finance-gateway/common/webhook-events';
import { authenticateUser } from '../core/user-auth.js';
import { sandboxId } from '../data/sandbox-ids.js';
import { parseBody, platformError, type SandboxRouter } from '../sandbox-http.js';
import type { SandboxState } from '../sandbox-state.js';

export interface WebhookSubscription {
  _id: string;
  userId: string;
  type: WebhookType;
  state?: string;
  created_at: string;
  updated_at: string;
  /** Null until the first successful delivery (the key is always present, as live). */
  last_called_at: string | null;
  /** Cancelled by the platform (the user revoked the app): no new events, existing ones finish. */
  cancelled?: boolean;
}

/** Per-user, per-type webhook subscriptions (`POST`/`GET`/`DELETE /v1/webhooks`). */
export function registerSubscriptionRoutes(
  router: SandboxRouter,
  state: SandboxState,
  hooks: WebhookSubscription[],
  webhookUrl: () => string | undefined,
): void {
  let sequence = 0;
  // `last_called_at` is set by the delivery engine on each successful delivery.
  const view = ({ userId: _user, type, ...rest }: WebhookSubscription) => ({ ...rest, type, url: webhookUrl() });

  router.on('POST', '/v1/webhooks', (request) => {
    const auth = authenticateUser(request, state);
    if (!auth) return;
    const body = parseBody(request) as { webhook_type?: unknown; state?: unknown } | undefined;
    if (!isWebhookType(body?.webhook_type)) return platformError(request, 400, 'Invalid webhook_type');
    if (body.state !== undefined && typeof body.state !== 'string')
      return platformError(request, 400, 'state must be a string');
    if (webhookUrl() === undefined) return platformError(request, 400, 'App is missing webhook url');
    sequence += 1;
    const now = new Date(state.clock()).toISOString();
    const hook: WebhookSubscription = {
      _id: sandboxId('hook', `${auth.user._id}:${sequence}:${now}`),
      userId: auth.user._id,
      type: body.webhook_type,
      state: body.state,
      created_at: now,
      updated_at: now,
      last_called_at: null,
    };
    hooks.push(hook);
    sendJson(request.res, 200, { success: true, item_id: hook._id });
  });

  router.on('GET', '/v1/webhooks', (request) => {
    const auth = authenticateUser(request, state);
    if (auth)
      sendJson(request.res, 200, {
        success: true,
        items: hooks
          .filter((hook) => hook.userId === auth.user._id && !hook.cancelled)
          .map(({ cancelled: _c, ...hook }) => view(hook)),
      });
  });

  router.on('DELETE', '/v1/webhooks/:id', (request) => {
    const auth = authenticateUser(request, state);
    if (!auth) return;
    const index = hooks.findIndex((hook) => hook._id === request.params.id && hook.userId === auth.user._id);
    if (index < 0) return platformError(request, 404, 'Not found');
    hooks.splice(index, 1);
    sendJson(request.res, 200, { success: true });
  });
}
