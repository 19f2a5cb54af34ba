import { Arg, Ctx, ID, Resolver, Root, Subscription } from 'type-graphql';
import type { LoggedEvent } from '../../event-log/event-log.js';
import type { PlatformTransaction } from '../../upstream/platform-types.js';
import { toAccount } from '../accounts/account.mapper.js';
import type { GatewayContext } from '../context.js';
import { toPayment, toTransfer } from '../payments/payment.mapper.js';
import { toTransaction } from '../transactions/transaction.mapper.js';
import {
  AccessRevokedEvent,
  AccountEvent,
  IncomeEvent,
  PaymentUpdate,
  TransactionEvent,
  TransferUpdate,
} from './event.type.js';
import { dateField, eventsAbout, stringField, stringList, userEvents } from './user-events.js';

type Args = Record<string, string | undefined>;

const AFTER_DESCRIPTION =
  'Resume after this `cursor` (from an earlier event): the retained events after it come first, then live ones, with no gap or duplicate. Unknown or too old: CURSOR_EXPIRED.';

/**
 * Live events, republished from verified webhooks. Each event is a signal: the object it names
 * is re-read with the loaders of that event (each event executes with its own context, see
 * src/operation-core/per-event-execution.ts), so what the client sees is current state.
 */
@Resolver()
export class EventResolver {
  @Subscription(() => PaymentUpdate, {
    description:
      'Payment status changes (UPDATE) and arrivals (RECEIVED) for the signed-in user, optionally for one payment.',
    subscribe: eventsAbout('PAYMENT', 'paymentId'),
  })
  async paymentUpdated(
    @Root() event: LoggedEvent,
    @Ctx() context: GatewayContext,
    @Arg('paymentId', () => ID, { nullable: true }) _paymentId?: string,
    @Arg('after', () => String, { nullable: true, description: AFTER_DESCRIPTION }) _after?: string,
  ): Promise<PaymentUpdate> {
    const id = stringField(event, 'item_id');
    const payment = id ? await context.loaders.payment.load(id) : undefined;
    return {
      code: event.code,
      reconciled: false,
      paymentId: id,
      reportedStatus: stringField(event, 'status'),
      statusCode: stringField(event, 'status_code'),
      statusText: stringField(event, 'status_text'),
      fundsReceivedAt: dateField(event, 'received_at'),
      cursor: event.cursor,
      receivedAt: new Date(event.receivedAt),
      payment: payment ? toPayment(payment) : undefined,
    };
  }

  @Subscription(() => TransferUpdate, {
    description: 'Transfer status changes and arrivals for the signed-in user, optionally for one transfer.',
    subscribe: eventsAbout('TRANSFER', 'transferId'),
  })
  async transferUpdated(
    @Root() event: LoggedEvent,
    @Ctx() context: GatewayContext,
    @Arg('transferId', () => ID, { nullable: true }) _transferId?: string,
    @Arg('after', () => String, { nullable: true, description: AFTER_DESCRIPTION }) _after?: string,
  ): Promise<TransferUpdate> {
    const id = stringField(event, 'item_id');
    const transfer = id ? await context.loaders.transfer.load(id) : undefined;
    return {
      code: event.code,
      reconciled: false,
      transferId: id,
      reportedStatus: stringField(event, 'status'),
      statusText: stringField(event, 'status_text'),
      fundsReceivedAt: dateField(event, 'received_at'),
      cursor: event.cursor,
      receivedAt: new Date(event.receivedAt),
      transfer: transfer ? toTransfer(transfer) : undefined,
    };
  }

  @Subscription(() => AccountEvent, {
    description:
      'Accounts connected, updated (with the changed fields) or removed; `becameInactive` flags an account to reconnect.',
    subscribe: eventsAbout('ACCOUNT', 'accountId'),
  })
  async accountEvents(
    @Root() event: LoggedEvent,
    @Ctx() context: GatewayContext,
    @Arg('accountId', () => ID, { nullable: true }) _accountId?: string,
    @Arg('after', () => String, { nullable: true, description: AFTER_DESCRIPTION }) _after?: string,
  ): Promise<AccountEvent> {
    const id = stringField(event, 'item_id');
    const account = id && event.code !== 'DELETE' ? await context.loaders.account.load(id) : undefined;
    const updatedFields = stringList(event, 'updated_fields');
    return {
      code: event.code,
      reconciled: event.reconciled === true,
      accountId: id,
      updatedFields,
      becameInactive: account?.status === 'INACTIVE' && (event.code === 'CREATE' || updatedFields.includes('status')),
      account: account ? toAccount(account, context.links.reconnectUrl) : undefined,
      cursor: event.cursor,
      receivedAt: new Date(event.receivedAt),
    };
  }

  @Subscription(() => TransactionEvent, {
    description: 'New, updated or deleted transactions, per account; new ones are included, read fresh.',
    subscribe: eventsAbout('TRANSACTION', 'accountId'),
  })
  async transactionEvents(
    @Root() event: LoggedEvent,
    @Ctx() context: GatewayContext,
    @Arg('accountId', () => ID, { nullable: true }) _accountId?: string,
    @Arg('after', () => String, { nullable: true, description: AFTER_DESCRIPTION }) _after?: string,
  ): Promise<TransactionEvent> {
    const newIds = stringList(event, 'new_transaction_ids');
    // From the ledger, which the webhook's own read filled: no second platform read.
    const loaded = await context.loaders.transactionById.loadMany(newIds);
    const failed = loaded.find((row) => row instanceof Error);
    if (failed) throw failed;
    const rows = loaded.filter((row): row is PlatformTransaction => row !== undefined);
    const count = event.payload.new_transactions;
    return {
      code: event.code,
      reconciled: event.reconciled === true,
      accountId: stringField(event, 'item_id'),
      newTransactionCount: typeof count === 'number' ? count : newIds.length,
      newTransactionIds: newIds,
      newTransactions: rows.map(toTransaction),
      removedTransactionIds: stringList(event, 'removed_transactions'),
      cursor: event.cursor,
      receivedAt: new Date(event.receivedAt),
    };
  }

  @Subscription(() => IncomeEvent, {
    description: 'Income stream changes (beta on the platform; may change).',
    subscribe: eventsAbout('INCOME'),
  })
  incomeEvents(
    @Root() event: LoggedEvent,
    @Arg('after', () => String, { nullable: true, description: AFTER_DESCRIPTION }) _after?: string,
  ): IncomeEvent {
    return {
      code: event.code,
      reconciled: false,
      incomeId: stringField(event, 'item_id'),
      newTransactionIds: stringList(event, 'new_transaction_ids'),
      removedTransactionIds: stringList(event, 'removed_transaction_ids'),
      cursor: event.cursor,
      receivedAt: new Date(event.receivedAt),
    };
  }

  @Subscription(() => AccessRevokedEvent, {
    description:
      'The platform revoked the user\u2019s access (TOKEN DELETE). Sign the user out in the app: the socket closes next.',
    subscribe: ({ context, args }) =>
      userEvents(context as GatewayContext, 'TOKEN', (args as Args).after, (event) => event.code === 'DELETE'),
  })
  accessRevoked(
    @Root() event: LoggedEvent,
    @Arg('after', () => String, { nullable: true, description: AFTER_DESCRIPTION }) _after?: string,
  ): AccessRevokedEvent {
    return { reason: 'TOKEN_REVOKED', cursor: event.cursor, receivedAt: new Date(event.receivedAt) };
  }
}
