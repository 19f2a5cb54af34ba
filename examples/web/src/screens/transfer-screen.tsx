import { useMutation, useQuery, useSubscription } from '@apollo/client/react';
import { useCallback, useState, type FormEvent } from 'react';
import {
  AccountsDocument,
  CreateTransferDocument,
  TransferUpdatesDocument,
  type CreateTransferInput,
} from '../__generated__/graphql';
import { MoneyIntentActions } from '../components/money-intent-actions';
import { TransferProgress } from '../components/payment-progress';
import { ErrorMessage, Loading } from '../components/query-state';
import { formatMoney } from '../lib/money';
import { useMoneyMutation } from '../lib/use-money-mutation';

const EMPTY = { from: '', to: '', amount: '' };

/** Move money between the user's own accounts (`createTransfer`): one intent, sent once, followed live like a payment. */
export function TransferScreen() {
  const accounts = useQuery(AccountsDocument);
  useSubscription(TransferUpdatesDocument);
  const [form, setForm] = useState(EMPTY);
  const [createTransfer] = useMutation(CreateTransferDocument);
  const send = useCallback(
    async (input: CreateTransferInput, idempotencyKey: string) => {
      const { data } = await createTransfer({ variables: { idempotencyKey, input } });
      return data!.createTransfer.transfer;
    },
    [createTransfer],
  );
  const transfer = useMoneyMutation(send);

  if (accounts.loading && !accounts.data) return <Loading what="your accounts" />;
  if (accounts.error && !accounts.data)
    return <ErrorMessage error={accounts.error} retry={() => void accounts.refetch()} />;
  const all = accounts.data?.accounts ?? [];
  const nameOf = (id?: string | null) => all.find((account) => account.id === id)?.name ?? 'your account';
  if (transfer.phase === 'done' && transfer.result) {
    const sent = transfer.result;
    const newTransfer = () => {
      setForm(EMPTY);
      transfer.reset();
    };
    return (
      <section aria-labelledby="transfer-title">
        <h2 id="transfer-title">
          {formatMoney(sent.amount)} to {nameOf(sent.toAccountId)}
        </h2>
        <TransferProgress id={sent.id} />
        <button type="button" className="primary" onClick={newTransfer}>
          New transfer
        </button>
      </section>
    );
  }

  const sources = all.filter((account) => account.attributes.includes('TRANSFER_FROM'));
  // Transfers stay within one bank: the other accounts at the same bank.
  const bank = all.find((account) => account.id === form.from)?.bank.id;
  const targets = all.filter(
    (account) =>
      account.attributes.includes('TRANSFER_TO') &&
      account.id !== form.from &&
      (bank === undefined || account.bank.id === bank),
  );
  const field = (name: keyof typeof EMPTY) => ({
    id: `transfer-${name}`,
    value: form[name],
    onChange: (event: { target: { value: string } }) => setForm({ ...form, [name]: event.target.value }),
  });
  const options = (list: typeof all) =>
    list.map((account) => (
      <option key={account.id} value={account.id}>
        {account.name} ({account.formattedAccount})
      </option>
    ));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void transfer.submit({ from: form.from, to: form.to, amount: Number(form.amount) });
  };

  return (
    <section aria-labelledby="transfer-title">
      <h2 id="transfer-title">Move money between your accounts</h2>
      <form onSubmit={submit} className="form">
        <fieldset disabled={!transfer.editable} className="form">
          <label htmlFor="transfer-from">From</label>
          <select {...field('from')} required>
            <option value="">Choose an account</option>
            {options(sources)}
          </select>
          <label htmlFor="transfer-to">To</label>
          <select {...field('to')} required>
            <option value="">Choose an account</option>
            {options(targets)}
          </select>
          <label htmlFor="transfer-amount">Amount (NZD)</label>
          <input {...field('amount')} inputMode="decimal" required />
        </fieldset>
        <MoneyIntentActions intent={transfer} sendLabel="Send transfer" />
      </form>
    </section>
  );
}
