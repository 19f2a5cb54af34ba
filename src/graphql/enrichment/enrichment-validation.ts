import { ErrorCode, gatewayError } from '../errors.js';
import type { EnrichmentQueryInput } from './enrichment.input.js';

export const MAX_DESCRIPTION_LENGTH = 1000;
export const MAX_CORRELATION_ID_LENGTH = 256;
/** A bank's id: `conn_` followed by an opaque id, as the platform issues them. */
const BANK_ID = /^conn_[A-Za-z0-9]{1,64}$/;

export interface InvalidQuery {
  index: number;
  id: string | null;
  field: string;
  problem: string;
}

/** Every problem with a list of queries, so the client can fix them all in one round. */
export function findInvalidQueries(queries: readonly EnrichmentQueryInput[]): InvalidQuery[] {
  const problems: InvalidQuery[] = [];
  // A loop and a shared `report`, not a closure per query: this runs for each of up to 1,000.
  const report = (index: number, field: string, problem: string) =>
    problems.push({ index, id: queries[index]!.id ?? null, field, problem });
  for (let index = 0; index < queries.length; index += 1) {
    const query = queries[index]!;
    if (query.description.trim().length === 0) report(index, 'description', 'must not be empty');
    else if (query.description.length > MAX_DESCRIPTION_LENGTH)
      report(index, 'description', `must be at most ${MAX_DESCRIPTION_LENGTH} characters`);
    if (isPresent(query.bankId) && !BANK_ID.test(query.bankId))
      report(index, 'bankId', 'must be a bank id of the form conn_…');
    if (isPresent(query.connectionId) && !BANK_ID.test(query.connectionId))
      report(index, 'connectionId', 'must be a bank id of the form conn_…');
    if (query.bankId && query.connectionId && query.bankId !== query.connectionId)
      report(index, 'connectionId', 'differs from bankId (send only bankId; connectionId is its deprecated name)');
    if (isPresent(query.id) && query.id.length > MAX_CORRELATION_ID_LENGTH)
      report(index, 'id', `must be at most ${MAX_CORRELATION_ID_LENGTH} characters`);
    if (isPresent(query.amount) && query.direction) {
      const conflicting =
        (query.amount > 0 && query.direction === 'DEBIT') || (query.amount < 0 && query.direction === 'CREDIT');
      if (conflicting) report(index, 'direction', `contradicts the sign of amount (${query.amount})`);
    }
  }
  return problems;
}

const isPresent = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;

export function invalidQueriesError(problems: InvalidQuery[]) {
  const summary = problems
    .slice(0, 5)
    .map((p) => `queries[${p.index}]${p.id !== null ? ` (id "${p.id}")` : ''}.${p.field} ${p.problem}`)
    .join('; ');
  const more = problems.length > 5 ? `; and ${problems.length - 5} more` : '';
  return gatewayError(ErrorCode.BAD_USER_INPUT, `Invalid enrichment queries: ${summary}${more}.`, {
    argumentName: 'queries',
    invalidQueries: problems.slice(0, 100),
  });
}

export function tooManyQueriesError(requested: number, limit: number) {
  return gatewayError(
    ErrorCode.BAD_USER_INPUT,
    `One request may enrich at most ${limit} descriptions; this one asks for ${requested}.`,
    {
      argumentName: 'queries',
      limit,
      requested,
    },
  );
}
