/**
 * What a payment's or transfer's status means to the person who sent it. The platform's code is
 * shown beside it (support staff and logs speak in codes); a status the platform adds later, and
 * this list does not know, is shown as its code.
 */
const WORDS: Record<string, string> = {
  READY: 'On its way to your bank',
  PENDING_APPROVAL: 'Waiting for your approval at your bank',
  PAUSED: 'Paused by the platform for a check',
  SENT: 'Sent to the bank',
  DECLINED: 'Declined',
  ERROR: 'Failed',
  CANCELLED: 'Cancelled',
};

/** The status in words, with the platform's reason after a decline or failure ("Declined: Insufficient funds"). */
export function statusInWords(status: string, statusText?: string | null): string {
  const words = WORDS[status] ?? `Status ${status}`;
  return (status === 'DECLINED' || status === 'ERROR') && statusText ? `${words}: ${statusText}` : words;
}
