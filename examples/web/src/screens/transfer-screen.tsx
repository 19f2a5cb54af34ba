import { useMutation, useQuery, useSubscription } from '@apollo/client/react';
import { useCallback, useState, type FormEvent } from 'react';
import { AccountsDocument, CreateTransferDocument, TransferUpdatesDocument } from '../__generated__/graphql';
import { TransferProgress } from '../components/payment-progress';
import { ErrorMessage, Loading } from '../components/query-state';
import { StepUpPrompt } from '../components/step-up-prompt';
import { useMoneyMutation } from '../lib/use-money-mutation';

/** Move money between the user's own accounts (`createTransfer`), then watch it live like a payment. */
export function TransferScreen() {
  const accounts = useQuery(AccountsDocument);
  useSubscription(TransferUpdatesDocument);
  const [form, setForm] = useState({ from: '', to: '', amount: '' });
  const [transferId, setTransferId] = useState<string>();
  const [createTransfer] = useMutation(CreateTransferDocument);

  const send = useCallback(
    async (idempotencyKey: string) => {
      const input = { from: form.from, to: form.to, amount: Number(form.amount) };
      const { data } = await createTransfer({ variables: { idempotencyKey, input } });
      return data?.createTransfer.transfer.id;
    },
    [createTransfer, form],
  );
  const transfer = useMoneyMutation(send);
  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    const id = await transfer.submit();
    if (id) setTransferId(id);
  };

  if (accounts.loading && !accounts.data) return <Loading what="your accounts" />;
  if (accounts.error && !accounts.data)
    return <ErrorMessage error={accounts.error} retry={() => void accounts.refetch()} />;
  const all = accounts.data?.accounts ?? [];
  const sources = all.filter((account) => account.attributes.includes('TRANSFER_FROM'));
  // Transfers stay within one bank: the other accounts at the same bank.
  const bank = all.find((account) => account.id === form.from)?.bank.id;
  const targets = all.filter(
    (account) =>
      account.attributes.includes('TRANSFER_TO') &&
      account.id !== form.from &&
      (bank === undefined || account.bank.id === bank),
  );
  const field = (name: keyof typeof form) => ({
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

  return (
    <section aria-labelledby="transfer-title">
      <h2 id="transfer-title">Move money between your accounts</h2>
      <form onSubmit={(event) => void submit(event)} className="form">
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
        <button type="submit" className="primary" disabled={transfer.busy}>
          {transfer.busy ? 'Sending…' : transfer.outcomeUnknown ? 'Check and retry safely' : 'Send transfer'}
        </button>
      </form>
      {transfer.stepUpUrl && <StepUpPrompt url={transfer.stepUpUrl} onStepUp={() => void submit()} />}
      <ErrorMessage error={transfer.failure} />
      {transferId && <TransferProgress id={transferId} />}
    </section>
  );
}
