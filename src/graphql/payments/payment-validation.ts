import type { PlatformPaymentRequest, PlatformTransferRequest } from '../../upstream/platform-types.js';
import { ErrorCode, gatewayError } from '../errors.js';
import type { CreatePaymentInput, CreateTransferInput } from './payment.input.js';

/** `BB-bbbb-AAAAAAA-SS(S)`: bank, branch, account, suffix. */
const NZ_ACCOUNT_NUMBER = /^\d{2}-\d{4}-\d{7}-\d{2,3}$/;
/** The characters NZ banks carry in particulars, code and reference, at most 12. */
const STATEMENT_TEXT = /^[A-Za-z0-9 \-_]{0,12}$/;
const MAX_IDEMPOTENCY_KEY_LENGTH = 200;

export interface InputProblem {
  field: string;
  problem: string;
}

function checkAmount(amount: number, problems: InputProblem[]): void {
  if (!Number.isFinite(amount) || amount <= 0) problems.push({ field: 'amount', problem: 'must be positive' });
  else if (Math.abs(amount * 100 - Math.round(amount * 100)) > 1e-6)
    problems.push({ field: 'amount', problem: 'may have at most 2 decimal places' });
}

function checkText(value: string | null | undefined, field: string, problems: InputProblem[]): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if (!STATEMENT_TEXT.test(value)) problems.push({ field, problem: 'must be at most 12 of A-Z a-z 0-9 space - _' });
  return value;
}

export function checkIdempotencyKey(key: string | null | undefined, problems: InputProblem[]): string | undefined {
  if (key === null || key === undefined) return undefined;
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || /[^\x21-\x7e]/.test(key))
    problems.push({
      field: 'idempotencyKey',
      problem: `must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable characters without spaces`,
    });
  return key;
}

/** The gateway's own checks, so a typo costs no platform call; the platform still has the last word. */
export function paymentRequestOf(input: CreatePaymentInput, problems: InputProblem[]): PlatformPaymentRequest {
  checkAmount(input.amount, problems);
  const name = input.to.name.trim();
  if (name.length === 0 || name.length > 140)
    problems.push({ field: 'to.name', problem: 'must be 1 to 140 characters' });
  if (!NZ_ACCOUNT_NUMBER.test(input.to.accountNumber))
    problems.push({ field: 'to.accountNumber', problem: 'must be a NZ account number such as 12-3140-0412345-00' });
  const destination = {
    particulars: checkText(input.payeeStatement?.particulars, 'payeeStatement.particulars', problems),
    code: checkText(input.payeeStatement?.code, 'payeeStatement.code', problems),
    reference: checkText(input.payeeStatement?.reference, 'payeeStatement.reference', problems),
  };
  const source = {
    code: checkText(input.payerStatement?.code, 'payerStatement.code', problems),
    reference: checkText(input.payerStatement?.reference, 'payerStatement.reference', problems),
  };
  return {
    from: input.from,
    to: { name, account_number: input.to.accountNumber },
    amount: input.amount,
    meta: { source, destination },
  };
}

export function transferRequestOf(input: CreateTransferInput, problems: InputProblem[]): PlatformTransferRequest {
  checkAmount(input.amount, problems);
  if (input.from === input.to) problems.push({ field: 'to', problem: 'must be another account than from' });
  return { from: input.from, to: input.to, amount: input.amount };
}

export function invalidInputError(problems: InputProblem[]) {
  return gatewayError(
    ErrorCode.BAD_USER_INPUT,
    problems.map((problem) => `${problem.field} ${problem.problem}`).join('; '),
    { problems },
  );
}
