import { useFragment } from '@apollo/client/react';
import { PaymentStatusFragmentDoc, TransferStatusFragmentDoc } from '../__generated__/graphql';
import { LiveStatus } from './live-status';

/** The created payment as Apollo's cache holds it now: the `paymentUpdated` events keep it current. */
export function PaymentProgress({ id }: { id: string }) {
  const { data, complete } = useFragment({ fragment: PaymentStatusFragmentDoc, from: { __typename: 'Payment', id } });
  if (!complete) return null;
  return <LiveStatus label="Payment status" status={data.status} statusText={data.statusText} final={data.final} />;
}

/** The same for a transfer, kept current by `transferUpdated`. */
export function TransferProgress({ id }: { id: string }) {
  const { data, complete } = useFragment({ fragment: TransferStatusFragmentDoc, from: { __typename: 'Transfer', id } });
  if (!complete) return null;
  return <LiveStatus label="Transfer status" status={data.status} statusText={data.statusText} final={data.final} />;
}
