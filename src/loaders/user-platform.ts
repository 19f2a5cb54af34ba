import type { CoreClient, DateRange, TransactionFilter } from '../upstream/core-client.js';
import type { PlatformNameInput, PlatformPaymentRequest, PlatformTransferRequest } from '../upstream/platform-types.js';
import { AccessRevokedError, RefreshForbiddenError, UpstreamError } from '../upstream/upstream-error.js';

/** The core API for one signed-in user: the token is bound here and never handed to resolvers. */
export interface UserPlatform {
  getMe: () => ReturnType<CoreClient['getMe']>;
  listAccounts: () => ReturnType<CoreClient['listAccounts']>;
  getAccount: (accountId: string) => ReturnType<CoreClient['getAccount']>;
  listTransactions: (filter: TransactionFilter, cursor: string | null) => ReturnType<CoreClient['listTransactions']>;
  listPendingTransactions: (accountId?: string) => ReturnType<CoreClient['listPendingTransactions']>;
  verifyName: (name: PlatformNameInput, accountId?: string) => ReturnType<CoreClient['verifyName']>;
  revokeAccount: (accountId: string) => Promise<void>;
  revokeToken: () => Promise<void>;
  refresh: (id?: string) => Promise<void>;
  getPayment: (paymentId: string) => ReturnType<CoreClient['getPayment']>;
  getTransfer: (transferId: string) => ReturnType<CoreClient['getTransfer']>;
  listPayments: (range: DateRange) => ReturnType<CoreClient['listPayments']>;
  listTransfers: (range: DateRange) => ReturnType<CoreClient['listTransfers']>;
  createPayment: (payment: PlatformPaymentRequest, idempotencyKey: string) => ReturnType<CoreClient['createPayment']>;
  cancelPayment: (paymentId: string) => Promise<void>;
  createTransfer: (
    transfer: PlatformTransferRequest,
    idempotencyKey: string,
  ) => ReturnType<CoreClient['createTransfer']>;
  getTransactionsByIds: (ids: string[]) => ReturnType<CoreClient['getTransactionsByIds']>;
  listWebhooks: () => ReturnType<CoreClient['listWebhooks']>;
  deleteWebhook: (webhookId: string) => Promise<void>;
}

function isForbidden(error: unknown): boolean {
  return error instanceof UpstreamError && error.kind === 'http' && error.status === 403;
}

/**
 * Binds the core client to a user's token and applies the platform's rule that a 403 means the
 * token is dead: `onAccessRevoked` runs (once) and callers get AccessRevokedError. `/refresh` is the
 * exception the specification names: its 403 may only mean "not allowed to refresh", so the
 * gateway asks `GET /me` with the same token to tell the two apart. Every call goes through
 * `limit`, the user's share of upstream concurrency.
 */
export function bindUserPlatform(
  core: CoreClient,
  token: string,
  onAccessRevoked: () => Promise<void>,
  limit: <T>(call: () => Promise<T>) => Promise<T> = (call) => call(),
): UserPlatform {
  let revocation: Promise<void> | undefined;
  const revoked = async (): Promise<never> => {
    revocation ??= onAccessRevoked();
    await revocation;
    throw new AccessRevokedError();
  };
  const guard =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await limit(() => call(...args));
      } catch (error) {
        if (isForbidden(error)) return revoked();
        throw error;
      }
    };

  const getMe = guard(() => core.getMe(token));
  return {
    getMe,
    listAccounts: guard(() => core.listAccounts(token)),
    getAccount: guard((accountId: string) => core.getAccount(token, accountId)),
    listTransactions: guard((filter: TransactionFilter, cursor: string | null) =>
      core.listTransactions(token, filter, cursor),
    ),
    listPendingTransactions: guard((accountId?: string) => core.listPendingTransactions(token, accountId)),
    verifyName: guard((name: PlatformNameInput, accountId?: string) => core.verifyName(token, name, accountId)),
    revokeAccount: guard((accountId: string) => core.revokeAccount(token, accountId)),
    revokeToken: guard(() => core.revokeToken(token)),
    getPayment: guard((paymentId: string) => core.getPayment(token, paymentId)),
    getTransfer: guard((transferId: string) => core.getTransfer(token, transferId)),
    listPayments: guard((range: DateRange) => core.listPayments(token, range)),
    listTransfers: guard((range: DateRange) => core.listTransfers(token, range)),
    createPayment: guard((payment: PlatformPaymentRequest, key: string) => core.createPayment(token, payment, key)),
    cancelPayment: guard((paymentId: string) => core.cancelPayment(token, paymentId)),
    createTransfer: guard((transfer: PlatformTransferRequest, key: string) =>
      core.createTransfer(token, transfer, key),
    ),
    getTransactionsByIds: guard((ids: string[]) => core.getTransactionsByIds(token, ids)),
    listWebhooks: guard(() => core.listWebhooks(token)),
    deleteWebhook: guard((webhookId: string) => core.deleteWebhook(token, webhookId)),
    async refresh(id?: string) {
      try {
        await limit(() => core.refresh(token, id));
      } catch (error) {
        if (!isForbidden(error)) throw error;
        await getMe(); // throws AccessRevokedError when the token itself is dead
        throw new RefreshForbiddenError(
          (error as UpstreamError).details.platformMessage ?? 'The platform does not allow a refresh for this user.',
        );
      }
    },
  };
}
