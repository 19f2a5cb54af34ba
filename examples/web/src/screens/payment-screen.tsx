import { useMutation, useQuery, useSubscription } from '@apollo/client/react';
import { useCallback, useState, type FormEvent } from 'react';
import { AccountsDocument, CreatePaymentDocument, PaymentUpdatesDocument } from '../__generated__/graphql';
import { PayeeNameCheck } from '../components/payee-name-check';
import { PaymentProgress } from '../components/payment-progress';
import { ErrorMessage, Loading } from '../components/query-state';
import { StepUpPrompt } from '../components/step-up-prompt';
import { useMoneyMutation } from '../lib/use-money-mutation';

const EMPTY = { from: '', givenName: '', familyName: '', accountNumber: '', amount: '', reference: '' };

/**
 * Pay someone: check the payee's name, send `createPayment` with an idempotency key, then watch the
 * status change live. The subscription starts with the screen, so no early event is missed.
 */
export function PaymentScreen() {
  const accounts = useQuery(AccountsDocument);
  useSubscription(PaymentUpdatesDocument);
  const [form, setForm] = useState(EMPTY);
  const [checkedName, setCheckedName] = useState<string>();
  const [paymentId, setPaymentId] = useState<string>();
  const [createPayment] = useMutation(CreatePaymentDocument);
  const payeeName = `${form.givenName} ${form.familyName}`.trim();

  const send = useCallback(
    async (idempotencyKey: string) => {
      const { data } = await createPayment({
        variables: {
          idempotencyKey,
          input: {
            from: form.from,
            to: { name: payeeName, accountNumber: form.accountNumber.trim() },
            amount: Number(form.amount),
            ...(form.reference ? { payeeStatement: { reference: form.reference } } : {}),
          },
        },
      });
      return data?.createPayment.payment.id;
    },
    [createPayment, form, payeeName],
  );
  const payment = useMoneyMutation(send);
  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    const id = await payment.submit();
    if (id) setPaymentId(id);
  };

  if (accounts.loading && !accounts.data) return <Loading what="your accounts" />;
  if (accounts.error && !accounts.data)
    return <ErrorMessage error={accounts.error} retry={() => void accounts.refetch()} />;
  const payers = accounts.data?.accounts.filter((account) => account.attributes.includes('PAYMENT_FROM')) ?? [];
  const field = (name: keyof typeof EMPTY) => ({
    id: `pay-${name}`,
    value: form[name],
    onChange: (event: { target: { value: string } }) => setForm({ ...form, [name]: event.target.value }),
  });

  return (
    <section aria-labelledby="pay-title">
      <h2 id="pay-title">Pay someone</h2>
      <form onSubmit={(event) => void submit(event)} className="form">
        <label htmlFor="pay-from">From</label>
        <select {...field('from')} required>
          <option value="">Choose an account</option>
          {payers.map((account) => (
            <option key={account.id} value={account.id}>
              {account.name} ({account.formattedAccount})
            </option>
          ))}
        </select>
        <label htmlFor="pay-givenName">Payee’s first name</label>
        <input {...field('givenName')} autoComplete="off" />
        <label htmlFor="pay-familyName">Payee’s last name</label>
        <input {...field('familyName')} autoComplete="off" required />
        <PayeeNameCheck givenName={form.givenName} familyName={form.familyName} onChecked={setCheckedName} />
        <label htmlFor="pay-accountNumber">Payee’s account number</label>
        <input {...field('accountNumber')} placeholder="12-3140-0412345-00" inputMode="numeric" required />
        <label htmlFor="pay-amount">Amount (NZD)</label>
        <input {...field('amount')} inputMode="decimal" required />
        <label htmlFor="pay-reference">Reference (optional)</label>
        <input {...field('reference')} maxLength={12} />
        <button type="submit" className="primary" disabled={payment.busy || checkedName !== payeeName}>
          {payment.busy ? 'Sending…' : payment.outcomeUnknown ? 'Check and retry safely' : 'Send payment'}
        </button>
        {checkedName !== payeeName && <p className="muted">Check the payee’s name before you pay.</p>}
      </form>
      {payment.stepUpUrl && <StepUpPrompt url={payment.stepUpUrl} onStepUp={() => void submit()} />}
      <ErrorMessage error={payment.failure} />
      {paymentId && <PaymentProgress id={paymentId} />}
    </section>
  );
}
