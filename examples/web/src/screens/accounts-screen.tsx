import { useQuery, useSubscription } from '@apollo/client/react';
import { AccountChangesDocument, AccountsDocument, type AccountsQuery } from '../__generated__/graphql';
import { Logo } from '../components/logo';
import { ErrorMessage, Loading } from '../components/query-state';
import { useGatewayWindow } from '../lib/gateway-window';
import { formatMoney } from '../lib/money';

type Account = AccountsQuery['accounts'][number];

/** Accounts with balances and their bank; an inactive one asks the user to reconnect, in the sign-in window. */
export function AccountsScreen() {
  const { data, loading, error, refetch } = useQuery(AccountsDocument);
  // Status changes arrive live and update the cached accounts by id.
  useSubscription(AccountChangesDocument);
  // Back from the platform's consent: read the accounts again (the reconnected one is ACTIVE now).
  const reconnect = useGatewayWindow(() => void refetch());
  if (loading && !data) return <Loading what="accounts" />;
  if (error && !data) return <ErrorMessage error={error} retry={() => void refetch()} />;
  const accounts = data?.accounts ?? [];
  return (
    <section aria-labelledby="accounts-title">
      <h2 id="accounts-title">Accounts</h2>
      {accounts.length === 0 && <p>No accounts are shared with this app.</p>}
      <ul className="list" aria-label="Accounts">
        {accounts.map((account) => (
          <AccountRow key={account.id} account={account} onReconnect={reconnect.open} />
        ))}
      </ul>
      {reconnect.state === 'waiting' && <p role="status">Finish reconnecting in the window that opened…</p>}
      {reconnect.state === 'blocked' && <p role="alert">Allow pop-ups for this site, then try again.</p>}
    </section>
  );
}

function AccountRow({ account, onReconnect }: { account: Account; onReconnect: (url: string) => void }) {
  const { balance, bank } = account;
  return (
    <li className="row" data-account-id={account.id} data-status={account.status}>
      <Logo src={bank.logo} name={bank.name} />
      <div className="grow">
        <strong>{account.name}</strong>
        <div className="muted">
          {bank.name} · {account.formattedAccount ?? account.type}
        </div>
        {account.needsReconnection && (
          <div role="alert" className="alert">
            {bank.name} no longer gives access to this account.{' '}
            {account.reconnectUrl && (
              <button type="button" onClick={() => onReconnect(account.reconnectUrl!)}>
                Reconnect {bank.name}
              </button>
            )}
          </div>
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
