import { parseInstant } from '../../lib/instant.js';
import type { PlatformPayment, PlatformTimelineEntry, PlatformTransfer } from '../../upstream/platform-types.js';
import type { Payment, StatementDetails, TimelineEntry, Transfer } from './payment.type.js';

function toTimeline(entries: PlatformTimelineEntry[] | undefined): TimelineEntry[] {
  return (entries ?? []).flatMap((entry) => {
    const at = parseInstant(entry.time);
    return at ? [{ status: entry.status, at, expectedArrival: parseInstant(entry.eta) }] : [];
  });
}

function toStatement(details: StatementDetails | undefined): StatementDetails | undefined {
  if (!details || Object.values(details).every((value) => value === undefined)) return undefined;
  return { particulars: details.particulars, code: details.code, reference: details.reference };
}

export function toPayment(payment: PlatformPayment): Payment {
  return {
    id: payment._id,
    status: payment.status,
    statusCode: payment.status_code,
    statusText: payment.status_text,
    final: payment.final ?? false,
    amount: payment.amount,
    fromAccountId: payment.from,
    toName: payment.to?.name,
    toAccountNumber: payment.to?.account_number,
    payeeStatement: toStatement(payment.meta?.destination),
    payerStatement: toStatement(payment.meta?.source),
    reference: payment.sid,
    timeline: toTimeline(payment.timeline),
    createdAt: parseInstant(payment.created_at),
    updatedAt: parseInstant(payment.updated_at),
    receivedAt: parseInstant(payment.received_at),
  };
}

export function toTransfer(transfer: PlatformTransfer): Transfer {
  return {
    id: transfer._id,
    status: transfer.status,
    statusText: transfer.status_text,
    final: transfer.final ?? false,
    amount: transfer.amount,
    fromAccountId: transfer.from,
    toAccountId: transfer.to,
    reference: transfer.sid,
    timeline: toTimeline(transfer.timeline),
    createdAt: parseInstant(transfer.created_at),
    updatedAt: parseInstant(transfer.updated_at),
  };
}
