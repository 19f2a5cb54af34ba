import { useQuery } from '@apollo/client/react';
import { TransactionsPageDocument, type TransactionsPageQuery } from '../__generated__/graphql';
import { Logo } from '../components/logo';
import { ErrorMessage, Loading } from '../components/query-state';
import { formatDate, formatMoney } from '../lib/money';

type Transaction = TransactionsPageQuery['transactions']['edges'][number]['node'];

const PAGE_SIZE = 10;

/** Settled transactions, newest first, a page at a time, with merchant and category from the enrichment. */
export function TransactionsScreen() {
  const { data, loading, error, refetch, fetchMore } = useQuery(TransactionsPageDocument, {
    variables: { first: PAGE_SIZE },
    notifyOnNetworkStatusChange: true,
  });
  if (loading && !data) return <Loading what="transactions" />;
  if (error && !data) return <ErrorMessage error={error} retry={() => void refetch()} />;
  const page = data?.transactions;
  return (
    <section aria-labelledby="transactions-title">
      <h2 id="transactions-title">Transactions</h2>
      <ul className="list" aria-label="Transactions">
        {page?.edges.map(({ node }) => (
          <TransactionRow key={node.id} transaction={node} />
        ))}
      </ul>
      {error && <ErrorMessage error={error} />}
      {page?.pageInfo.hasNextPage && (
        <button
          type="button"
          disabled={loading}
          onClick={() => void fetchMore({ variables: { after: page.pageInfo.endCursor } })}
        >
          {loading ? 'Loading…' : 'More transactions'}
        </button>
      )}
    </section>
  );
}

function TransactionRow({ transaction }: { transaction: Transaction }) {
  const merchant = transaction.enrichment?.merchant;
  const category = transaction.enrichment?.category;
  return (
    <li className="row" data-transaction-id={transaction.id}>
      <Logo src={merchant?.logo} name={merchant?.name ?? transaction.description} />
      <div className="grow">
        <strong className="merchant">{merchant?.name ?? transaction.description}</strong>
        <div className="muted">
          {formatDate(transaction.date)}
          {category && <span className="category"> · {category.personalFinance?.name ?? category.name}</span>}
        </div>
      </div>
      <div className={transaction.amount < 0 ? 'amount' : 'amount credit'}>{formatMoney(transaction.amount)}</div>
    </li>
  );
}
