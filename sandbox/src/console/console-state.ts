import { WEBHOOK_EVENTS } from '@open-finance-gateway/common/webhook-events';
import type { Sandbox } from '../sandbox-api.js';
import type { SandboxState } from '../sandbox-state.js';

const RECENT_TRANSACTIONS = 8;
const RECENT_DELIVERIES = 60;

/** What the console shows: the demo world by user, and the webhook delivery log with each attempt. */
export function consoleSnapshot(state: SandboxState, sandbox: Sandbox) {
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
