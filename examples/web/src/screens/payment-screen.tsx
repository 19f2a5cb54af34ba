import { useMutation, useQuery, useSubscription } from '@apollo/client/react';
import { useCallback, useState, type FormEvent } from 'react';
import {
  AccountsDocument,
  CreatePaymentDocument,
  PaymentUpdatesDocument,
  type CreatePaymentInput,
} from '../__generated__/graphql';
import { MoneyIntentActions } from '../components/money-intent-actions';
import { PaymentProgress } from '../components/payment-progress';
import { ErrorMessage, Loading } from '../components/query-state';
import { formatMoney } from '../lib/money';
import { useMoneyMutation } from '../lib/use-money-mutation';

const EMPTY = { from: '', name: '', accountNumber: '', amount: '', reference: '' };

/**
 * Pay someone: one payment intent, sent once with its own idempotency key, then its status live.
 * The form locks while sending and is replaced by the result, with "New payment" to start another.
 * The subscription starts with the screen, so no early event is missed.
 */
export function PaymentScreen() {
  const accounts = useQuery(AccountsDocument);
  useSubscription(PaymentUpdatesDocument);
  const [form, setForm] = useState(EMPTY);
  const [createPayment] = useMutation(CreatePaymentDocument);
  const send = useCallback(
    async (input: CreatePaymentInput, idempotencyKey: string) => {
      const { data } = await createPayment({ variables: { idempotencyKey, input } });
      return data!.createPayment.payment;
    },
    [createPayment],
  );
  const payment = useMoneyMutation(send);

  if (accounts.loading && !accounts.data) return <Loading what="your accounts" />;
  if (accounts.error && !accounts.data)
    return <ErrorMessage error={accounts.error} retry={() => void accounts.refetch()} />;
  if (payment.phase === 'done' && payment.result) {
    const sent = payment.result;
    const newPayment = () => {
      setForm(EMPTY);
      payment.reset();
    };
    return (
      <section aria-labelledby="pay-title">
        <h2 id="pay-title">
          {formatMoney(sent.amount)} to {sent.toName}
        </h2>
        <PaymentProgress id={sent.id} />
        <button type="button" className="primary" onClick={newPayment}>
          New payment
        </button>
      </section>
    );
  }

  const payers = accounts.data?.accounts.filter((account) => account.attributes.includes('PAYMENT_FROM')) ?? [];
  const field = (name: keyof typeof EMPTY) => ({
    id: `pay-${name}`,
    value: form[name],
    onChange: (event: { target: { value: string } }) => setForm({ ...form, [name]: event.target.value }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void payment.submit({
      from: form.from,
      to: { name: form.name.trim(), accountNumber: form.accountNumber.trim() },
      amount: Number(form.amount),
      ...(form.reference ? { payeeStatement: { reference: form.reference } } : {}),
    });
  };

  return (
    <section aria-labelledby="pay-title">
      <h2 id="pay-title">Pay someone</h2>
      <form onSubmit={submit} className="form">
        <fieldset disabled={!payment.editable} className="form">
          <label htmlFor="pay-from">From</label>
          <select {...field('from')} required>
            <option value="">Choose an account</option>
            {payers.map((account) => (
              <option key={account.id} value={account.id}>
                {account.name} ({account.formattedAccount})
              </option>
            ))}
          </select>
          <label htmlFor="pay-name">Payee’s name</label>
          <input {...field('name')} autoComplete="off" required />
          <label htmlFor="pay-accountNumber">Payee’s account number</label>
          <input {...field('accountNumber')} placeholder="12-3140-0412345-00" inputMode="numeric" required />
          <p className="muted" id="pay-payee-note">
            The app cannot check the payee’s name against this account number: check the number with the payee before
            you send.
          </p>
          <label htmlFor="pay-amount">Amount (NZD)</label>
          <input {...field('amount')} inputMode="decimal" required />
          <label htmlFor="pay-reference">Reference (optional)</label>
          <input {...field('reference')} maxLength={12} />
        </fieldset>
        <MoneyIntentActions intent={payment} sendLabel="Send payment" />
      </form>
    </section>
  );
}
