import type { WebhookCode } from '@open-finance-gateway/common/webhook-events';
import { compareTransactions } from '../data/demo-world.js';
import { MERCHANTS } from '../data/merchants.js';
import { sandboxId } from '../data/sandbox-ids.js';
import type { SandboxAccount, SandboxTransaction } from '../model/core-model.js';
import type { SandboxState } from '../sandbox-state.js';
import type { DeliveryEngine } from './delivery-engine.js';
import type { WebhookSubscription } from './subscription-routes.js';

/**
 * Changes that happen at the platform outside the app, each announced with the webhook the live
 * platform sends for it: a newly connected account (ACCOUNT CREATE, then TRANSACTION
 * INITIAL_UPDATE with its history), an account removed at the platform (ACCOUNT DELETE), a
 * transaction the bank withdrew (TRANSACTION DELETE), a finished refresh (a new transaction,
 * balance updates), and changes to the user's income streams (INCOME, beta).
 */
export class WorldChanges {
  private sequence = 0;

  constructor(
    private readonly state: SandboxState,
    private readonly engine: DeliveryEngine,
    private readonly subscriptions: readonly WebhookSubscription[],
  ) {}

  /** The bank connection behind an account broke (INACTIVE) or was mended (ACTIVE). */
  setAccountStatus(accountId: string, status: 'ACTIVE' | 'INACTIVE'): boolean {
    const account = this.state.accounts.get(accountId);
    if (!account) return false;
    const changed = account.status !== status;
    account.status = status;
    if (changed)
      this.engine.emit(account.sandboxUserId, 'ACCOUNT', 'UPDATE', { item_id: accountId, updated_fields: ['status'] });
    return true;
  }

  /** A new consent: the user's accounts the platform had lost access to are ACTIVE again (ACCOUNT UPDATE each). */
  reconnected(userId: string): void {
    for (const account of this.state.visibleAccounts(userId))
      if (account.status === 'INACTIVE') this.setAccountStatus(account._id, 'ACTIVE');
  }

  /**
   * The user revoked the app outside it: every token of theirs dies (TOKEN DELETE each), and as the
   * app lost the user, the platform cancels their other webhooks. Returns how many tokens died.
   */
  revokeApp(userId: string): number {
    let revoked = 0;
    for (const [token, record] of this.state.tokens) {
      if (record.userId !== userId || record.revoked) continue;
      record.revoked = true;
      revoked += 1;
      this.engine.emit(userId, 'TOKEN', 'DELETE', { item_id: token });
    }
    if (revoked === 0) return 0;
    for (const hook of this.subscriptions) {
      if (hook.userId !== userId || hook.type === 'TOKEN' || hook.cancelled) continue;
      this.engine.emit(userId, hook.type, 'WEBHOOK_CANCELLED');
      hook.cancelled = true;
    }
    return revoked;
  }

  /** The user connects another account at their first bank: it is shared with the app and has a few weeks of history. */
  connectAccount(userId: string, name = 'Bills account'): { account: SandboxAccount; transactionIds: string[] } {
    const existing = [...this.state.accounts.values()].find((account) => account.sandboxUserId === userId);
    if (!existing) throw new Error('user has no bank connection to add an account to');
    this.sequence += 1;
    const now = this.state.clock();
    const iso = (time: number) => new Date(time).toISOString();
    const account: SandboxAccount = {
      _id: sandboxId('acc', `${userId}:connected:${this.sequence}:${now}`),
      _authorisation: existing._authorisation,
      connection: existing.connection,
      name,
      status: 'ACTIVE',
      // Same bank and branch as the existing account when it has a NZ number, a fresh account number.
      formatted_account: `${/^\d{2}-\d{4}-/.test(existing.formatted_account) ? existing.formatted_account.slice(0, 8) : '01-0123-'}${String(7_000_000 + this.sequence)}-00`,
      type: 'CHECKING',
      attributes: ['TRANSACTIONS', 'PAYMENT_FROM', 'PAYMENT_TO', 'TRANSFER_FROM', 'TRANSFER_TO'],
      balance: { currency: 'NZD', current: 250, available: 250 },
      meta: { holder: existing.meta.holder },
      refreshed: { balance: iso(now), transactions: iso(now), meta: iso(now) },
      sandboxUserId: userId,
      sandboxShared: true,
    };
    this.state.accounts.set(account._id, account);
    const transactionIds: string[] = [];
    for (let day = 1; day <= 5; day += 1) {
      const merchant = MERCHANTS[(this.sequence * 7 + day) % MERCHANTS.length]!;
      const id = sandboxId('trans', `${account._id}:${day}`);
      const transaction: SandboxTransaction = {
        _id: id,
        hash: sandboxId('hash', `${account._id}:${day}`),
        _account: account._id,
        _connection: account.connection._id,
        _user: userId,
        created_at: iso(now),
        updated_at: iso(now),
        date: iso(now - day * 86_400_000),
        description: merchant.sample,
        amount: -10 * day - 0.5,
        type: 'EFTPOS',
        meta: {},
      };
      this.state.transactions.push(transaction);
      transactionIds.push(id);
    }
    this.state.transactions.sort(compareTransactions);
    this.engine.emit(userId, 'ACCOUNT', 'CREATE', { item_id: account._id });
    this.engine.emit(userId, 'TRANSACTION', 'INITIAL_UPDATE', {
      item_id: account._id,
      new_transactions: transactionIds.length,
      new_transaction_ids: transactionIds,
    });
    return { account, transactionIds };
  }

  /**
   * What a finished refresh produces on the platform: a new transaction on each everyday or credit
   * card account, and a balance update on every refreshed account.
   */
  refreshed(userId: string, accounts: SandboxAccount[]): void {
    for (const account of accounts) {
      if (account.type === 'CHECKING' || account.type === 'CREDITCARD') this.addRefreshTransaction(userId, account);
      this.engine.emit(userId, 'ACCOUNT', 'UPDATE', { item_id: account._id, updated_fields: ['balance', 'refreshed'] });
    }
  }

  private addRefreshTransaction(userId: string, account: SandboxAccount): void {
    const merchant = MERCHANTS[this.state.transactions.length % MERCHANTS.length]!;
    const now = new Date(this.state.clock()).toISOString();
    const seed = `refresh:${account._id}:${this.state.transactions.length}:${now}`;
    const transaction: SandboxTransaction = {
      _id: sandboxId('trans', seed),
      _account: account._id,
      _connection: account.connection._id,
      _user: userId,
      created_at: now,
      updated_at: now,
      date: now,
      hash: sandboxId('hash', seed),
      description: merchant.sample,
      amount: -12.5,
      type: 'EFTPOS',
      meta: {},
    };
    this.state.transactions.push(transaction);
    this.state.transactions.sort(compareTransactions);
    this.engine.emit(userId, 'TRANSACTION', 'DEFAULT_UPDATE', {
      item_id: account._id,
      new_transactions: 1,
      new_transaction_ids: [transaction._id],
    });
  }

  /** The user removes the account at the platform: gone for the app too. */
  removeAccount(accountId: string): boolean {
    const account = this.state.accounts.get(accountId);
    if (!account) return false;
    this.state.accounts.delete(accountId);
    this.state.transactions = this.state.transactions.filter((row) => row._account !== accountId);
    this.engine.emit(account.sandboxUserId, 'ACCOUNT', 'DELETE', { item_id: accountId });
    return true;
  }

  /** The bank withdrew a transaction (a duplicate, a reversal): it is removed and announced. */
  removeTransaction(transactionId: string): boolean {
    const index = this.state.transactions.findIndex((row) => row._id === transactionId);
    if (index < 0) return false;
    const [removed] = this.state.transactions.splice(index, 1);
    this.engine.emit(removed!._user, 'TRANSACTION', 'DELETE', {
      item_id: removed!._account,
      removed_transactions: [removed!._id],
    });
    return true;
  }

  /** One of the user's income streams was found, changed or ended (the platform's beta INCOME webhooks). */
  incomeChanged(userId: string, code: Exclude<WebhookCode<'INCOME'>, 'WEBHOOK_CANCELLED'>): string {
    this.sequence += 1;
    const incomeId = sandboxId('income', `${userId}:${this.sequence}`);
    const salary = this.state.transactions.filter((row) => row._user === userId && row.amount > 0).slice(0, 2);
    this.engine.emit(userId, 'INCOME', code, {
      item_id: incomeId,
      ...(code === 'DELETE'
        ? { removed_transactions: salary.length, removed_transaction_ids: salary.map((row) => row._id) }
        : { new_transactions: salary.length, new_transaction_ids: salary.map((row) => row._id) }),
    });
    return incomeId;
  }
}
