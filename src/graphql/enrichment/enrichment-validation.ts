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
  queries.forEach((query, index) => {
    const report = (field: string, problem: string) => problems.push({ index, id: query.id ?? null, field, problem });
    if (query.description.trim().length === 0) report('description', 'must not be empty');
    else if (query.description.length > MAX_DESCRIPTION_LENGTH)
      report('description', `must be at most ${MAX_DESCRIPTION_LENGTH} characters`);
    for (const field of ['bankId', 'connectionId'] as const) {
      const id = query[field];
      if (id !== undefined && id !== null && !BANK_ID.test(id)) report(field, 'must be a bank id of the form conn_…');
    }
    if (query.bankId && query.connectionId && query.bankId !== query.connectionId)
      report('connectionId', 'differs from bankId (send only bankId; connectionId is its deprecated name)');
    if (query.id !== undefined && query.id !== null && query.id.length > MAX_CORRELATION_ID_LENGTH)
      report('id', `must be at most ${MAX_CORRELATION_ID_LENGTH} characters`);
    if (query.amount !== undefined && query.amount !== null && query.direction) {
      const conflicting =
        (query.amount > 0 && query.direction === 'DEBIT') || (query.amount < 0 && query.direction === 'CREDIT');
      if (conflicting) report('direction', `contradicts the sign of amount (${query.amount})`);
    }
  });
  return problems;
}

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
