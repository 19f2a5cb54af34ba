import { WEBHOOK_EVENTS } from '@open-finance-gateway/common/webhook-events';
import type { Sandbox } from '../sandbox-api.js';
import type { SandboxState } from '../sandbox-state.js';

const RECENT_TRANSACTIONS = 8;
const RECENT_DELIVERIES = 60;

/**
 * Whether the gateway embedding this sandbox serves a user's data from its user-data store: its
 * oldest kept answer's age, nothing kept (the next open reads the platform), or no answer from
 * its store. Absent when no gateway asked to show it (a standalone sandbox).
 */
export type KeptDataView = { kept: true; ageSeconds: number } | { kept: false } | { unknown: true };

/** Asks the embedding gateway about each demo user, by the webhook states its app registered for them. */
export async function keptDataByUser(state: SandboxState, sandbox: Sandbox): Promise<Map<string, KeptDataView>> {
  const probe = state.keptData;
  const views = new Map<string, KeptDataView>();
  if (!probe) return views;
  const hooks = sandbox.webhookSubscriptions();
  await Promise.all(
    [...state.users.keys()].map(async (userId) => {
      const states = [...new Set(hooks.flatMap((hook) => (hook.userId === userId && hook.state ? [hook.state] : [])))];
      if (states.length === 0) return views.set(userId, { kept: false });
      try {
        const ageMs = await probe(states);
        views.set(userId, ageMs === undefined ? { kept: false } : { kept: true, ageSeconds: Math.floor(ageMs / 1000) });
      } catch {
        views.set(userId, { unknown: true });
      }
    }),
  );
  return views;
}

/** What the console shows: the demo world by user, and the webhook delivery log with each attempt. */
export function consoleSnapshot(state: SandboxState, sandbox: Sandbox, keptData = new Map<string, KeptDataView>()) {
  const hooks = sandbox.webhookSubscriptions();
  const users = [...state.users.values()].map((user) => {
    const accounts = [...state.accounts.values()].filter((account) => account.sandboxUserId === user._id);
    return {
      id: user._id,
      name: user.preferred_name,
      email: user.email,
      accounts: accounts.map((account) => ({
        id: account._id,
        name: account.name,
        number: account.formatted_account,
        bank: account.connection.name,
        type: account.type,
        status: account.status,
        shared: account.sandboxShared,
        balance: account.balance.current,
        canPay: account.attributes.includes('PAYMENT_FROM'),
      })),
      transactions: state.transactions
        .filter((row) => row._user === user._id)
        .slice(0, RECENT_TRANSACTIONS)
        .map((row) => ({ id: row._id, date: row.date, description: row.description, amount: row.amount })),
      payments: [...sandbox.payments.payments.values()]
        .filter((payment) => payment.sandboxUserId === user._id)
        .reverse()
        .map((payment) => ({
          id: payment._id,
          amount: payment.amount,
          to: payment.to.name,
          status: payment.status,
          statusCode: payment.status_code,
          final: payment.final,
          timeline: payment.timeline,
        })),
      transfers: [...sandbox.payments.transfers.values()]
        .filter((transfer) => transfer.sandboxUserId === user._id)
        .reverse()
        .map((transfer) => ({
          id: transfer._id,
          amount: transfer.amount,
          status: transfer.status,
          final: transfer.final,
        })),
      hooks: hooks
        .filter((hook) => hook.userId === user._id)
        .map((hook) => ({
          id: hook._id,
          type: hook.type,
          cancelled: hook.cancelled === true,
          lastCalledAt: hook.last_called_at,
        })),
      tokens: [...state.tokens.values()].filter((token) => token.userId === user._id && !token.revoked).length,
      keptData: keptData.get(user._id),
    };
  });
  const hookOwner = new Map(hooks.map((hook) => [hook._id, hook.userId]));
  return {
    users,
    deliveries: sandbox.deliveries.events
      .slice(-RECENT_DELIVERIES)
      .reverse()
      .map((event) => ({
        id: event._id,
        user: hookOwner.get(event._hook),
        type: event.payload.webhook_type,
        code: event.payload.webhook_code,
        itemId: event.payload.item_id,
        // What the webhook says of its item (a payment's or transfer's status), apart from its delivery's.
        reportedStatus: typeof event.payload.status === 'string' ? event.payload.status : undefined,
        status: event.status,
        attempts: event.attempts,
        createdAt: event.created_at,
        updatedAt: event.updated_at,
        lastFailedAt: event.last_failed_at,
      })),
    webhooks: { disabled: sandbox.deliveries.isDisabled, signingKeyId: sandbox.signingKeys.currentId },
    faults: { core: state.coreFault, enrichment: state.enrichmentFault },
    webhookTable: Object.fromEntries(Object.entries(WEBHOOK_EVENTS).map(([type, { codes }]) => [type, codes])),
    paymentStatuses: ['PENDING_APPROVAL', 'PAUSED', 'SENT', 'DECLINED', 'ERROR', 'CANCELLED'],
  };
}
