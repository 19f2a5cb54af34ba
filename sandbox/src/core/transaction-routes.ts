import { sendJson } from '@open-finance-gateway/common/http/respond';
import { compareTransactions } from '../data/demo-world.js';
import { platformError, type SandboxRequest, type SandboxRouter } from '../sandbox-http.js';
import type { SandboxState } from '../sandbox-state.js';
import { visibleAccount } from './account-routes.js';
import { authenticateUser } from './user-auth.js';

export const TRANSACTION_PAGE_SIZE = 100;

interface CursorKey {
  date: string;
  _id: string;
}

function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify([key.date, key._id])).toString('base64url');
}

function decodeCursor(cursor: string): CursorKey | undefined {
  try {
    const [date, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    return typeof date === 'string' && typeof id === 'string' ? { date, _id: id } : undefined;
  } catch {
    return undefined;
  }
}

function parseInstant(value: string | null): number | undefined | 'invalid' {
  if (value === null) return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? 'invalid' : time;
}

/**
 * Settled transactions, newest first, about 100 a page. The cursor is a keyset (the last row's
 * date and id), so rows arriving between pages cause neither duplicates nor gaps. As on the live
 * platform, a full last page still carries a `next` cursor, whose page is then empty.
 */
function listTransactions(request: SandboxRequest, state: SandboxState, userId: string, accountId?: string): void {
  const query = request.url.searchParams;
  const start = parseInstant(query.get('start'));
  const end = parseInstant(query.get('end'));
  if (start === 'invalid' || end === 'invalid')
    return platformError(request, 400, 'start and end must be ISO 8601 timestamps');
  const cursorParam = query.get('cursor');
  const after = cursorParam === null ? undefined : decodeCursor(cursorParam);
  if (cursorParam !== null && !after) return platformError(request, 400, 'Invalid cursor');

  const visible = new Set(state.visibleAccounts(userId).map((account) => account._id));
  const page = [];
  for (const transaction of state.transactions) {
    if (transaction._user !== userId || !visible.has(transaction._account)) continue;
    if (accountId !== undefined && transaction._account !== accountId) continue;
    const time = Date.parse(transaction.date);
    if (start !== undefined && time <= start) continue; // start is exclusive
    if (end !== undefined && time > end) continue; // end is inclusive
    if (after && compareTransactions(transaction, after) <= 0) continue;
    page.push(transaction);
    if (page.length === TRANSACTION_PAGE_SIZE) break;
  }
  const next = page.length === TRANSACTION_PAGE_SIZE ? encodeCursor(page.at(-1)!) : null;
  sendJson(request.res, 200, { success: true, items: page, cursor: { next } });
}

function listPending(request: SandboxRequest, state: SandboxState, userId: string, accountId?: string): void {
  const visible = new Set(state.visibleAccounts(userId).map((account) => account._id));
  const items = state.pending.filter(
    (row) =>
      row._user === userId && visible.has(row._account) && (accountId === undefined || row._account === accountId),
  );
  sendJson(request.res, 200, { success: true, items });
}

export function registerTransactionRoutes(router: SandboxRouter, state: SandboxState): void {
  router.on('GET', '/v1/transactions', (request) => {
    const auth = authenticateUser(request, state);
    if (auth) listTransactions(request, state, auth.user._id);
  });
  router.on('GET', '/v1/transactions/pending', (request) => {
    const auth = authenticateUser(request, state);
    if (auth) listPending(request, state, auth.user._id);
  });
  router.on('GET', '/v1/accounts/:id/transactions', (request) => {
    const auth = authenticateUser(request, state);
    const account = auth && visibleAccount(request, state, auth.user._id, request.params.id!);
    if (account) listTransactions(request, state, auth.user._id, account._id);
  });
  router.on('GET', '/v1/accounts/:id/transactions/pending', (request) => {
    const auth = authenticateUser(request, state);
    const account = auth && visibleAccount(request, state, auth.user._id, request.params.id!);
    if (account) listPending(request, state, auth.user._id, account._id);
  });

  // Designed for TRANSACTION webhooks: fetch the new rows by id.
  router.on('POST', '/v1/transactions/ids', (request) => {
    const auth = authenticateUser(request, state);
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
