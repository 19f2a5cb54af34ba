import { useMutation, useQuery } from '@apollo/client/react';
import { useState } from 'react';
import { AccountsDocument, RevokeAccountDocument, type AccountsQuery } from '../__generated__/graphql';
import { ConfirmAction } from './confirm-action';
import { Logo } from './logo';
import { ErrorMessage, Loading } from './query-state';

type Account = AccountsQuery['accounts'][number];

/**
 * Every account shared with the app, whatever its status, each with its own "Stop sharing"
 * (`revokeAccount`: the platform's DELETE /v1/accounts/{id}), confirmed first. A stopped account
 * leaves the list at once (it is removed from Apollo's cache), and a line above the list says so.
 */
export function ConnectedAccounts() {
  const { data, loading, error, refetch } = useQuery(AccountsDocument);
  const [stopped, setStopped] = useState<string>();
  if (loading && !data) return <Loading what="your connected accounts" />;
  if (error && !data) return <ErrorMessage error={error} retry={() => void refetch()} />;
  const accounts = data?.accounts ?? [];
  return (
    <>
      <p role="status" className="done">
        {stopped && `You stopped sharing ${stopped}. Kete no longer sees it or pays from it.`}
      </p>
      {accounts.length === 0 && <p>No accounts are shared with this app.</p>}
      <ul className="list" aria-label="Connected accounts">
        {accounts.map((account) => (
          <ConnectedAccount key={account.id} account={account} onStopped={setStopped} />
        ))}
      </ul>
    </>
  );
}

function ConnectedAccount({ account, onStopped }: { account: Account; onStopped: (name: string) => void }) {
  const [revoke, revoking] = useMutation(RevokeAccountDocument, {
    variables: { id: account.id },
    onCompleted: () => onStopped(account.name),
    update(cache) {
      cache.evict({ id: cache.identify({ __typename: 'Account', id: account.id }) });
      cache.gc();
    },
  });
  return (
    <li className="row" data-account-id={account.id}>
      <Logo src={account.bank.logo} name={account.bank.name} />
      <div className="grow">
        <strong>{account.name}</strong>
        <div className="muted">
          {account.bank.name} · {account.formattedAccount ?? account.type} ·{' '}
          {account.status === 'ACTIVE' ? 'Shared' : 'Shared, but the bank no longer gives access'}
        </div>
        <ConfirmAction
          label={`Stop sharing ${account.name}`}
          warning={`Kete will no longer see ${account.name} or pay from it. Your other accounts stay shared.`}
          confirmLabel="Yes, stop sharing"
          busy={revoking.loading}
          onConfirm={() => void revoke().catch(() => undefined)}
        />
        <ErrorMessage error={revoking.error} />
      </div>
    </li>
  );
}
