import { useQuery, useSubscription } from '@apollo/client/react';
import { AccountChangesDocument, AccountsDocument, type AccountsQuery } from '../__generated__/graphql';
import { ErrorMessage, Loading } from '../components/query-state';
import { formatMoney } from '../lib/money';

type Account = AccountsQuery['accounts'][number];

/** Accounts with balances and their bank; an inactive one asks the user to reconnect. */
export function AccountsScreen() {
  const { data, loading, error, refetch } = useQuery(AccountsDocument);
  // Status changes arrive live and update the cached accounts by id.
  useSubscription(AccountChangesDocument);
  if (loading && !data) return <Loading what="accounts" />;
  if (error && !data) return <ErrorMessage error={error} retry={() => void refetch()} />;
  const accounts = data?.accounts ?? [];
  return (
    <section aria-labelledby="accounts-title">
      <h2 id="accounts-title">Accounts</h2>
      {accounts.length === 0 && <p>No accounts are shared with this app.</p>}
      <ul className="list" aria-label="Accounts">
        {accounts.map((account) => (
          <AccountRow key={account.id} account={account} />
        ))}
      </ul>
    </section>
  );
}

function AccountRow({ account }: { account: Account }) {
  const { balance, bank } = account;
  return (
    <li className="row" data-account-id={account.id} data-status={account.status}>
      {bank.logo ? <img src={bank.logo} alt="" width={32} height={32} /> : <span className="logo" />}
      <div className="grow">
        <strong>{account.name}</strong>
        <div className="muted">
          {bank.name} · {account.formattedAccount ?? account.type}
        </div>
        {account.needsReconnection && (
          <p role="alert" className="alert">
            {bank.name} no longer gives access to this account.{' '}
            {account.reconnectUrl && (
              <a href={account.reconnectUrl} target="_blank" rel="noreferrer">
                Reconnect {bank.name}
              </a>
            )}
          </p>
        )}
      </div>
      {balance && (
        <div className="amount" aria-label={`Balance of ${account.name}`}>
          {formatMoney(balance.current, balance.currency)}
          {balance.available != null && (
            <div className="muted">{formatMoney(balance.available, balance.currency)} available</div>
          )}
        </div>
      )}
    </li>
  );
}
