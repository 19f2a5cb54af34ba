import { sendJsonText } from '@open-finance-gateway/common/http/respond';
import { appIdOf } from '../core/app-id-header.js';
import { parseBody, platformError, type SandboxRequest, type SandboxRouter } from '../sandbox-http.js';
import type { SandboxState } from '../sandbox-state.js';
import type { MerchantMatcher, SearchQuery, SearchResult } from './merchant-matcher.js';

/** The live service is reported to take up to 1000 queries per call; the sandbox enforces that. */
export const SANDBOX_MAX_QUERIES_PER_SEARCH = 1000;

export function registerSearchRoutes(router: SandboxRouter, state: SandboxState, matcher: MerchantMatcher): void {
  // Categories and merchants are shared objects (a hundred or so), so their JSON is written once
  // and each result is assembled from it: serialising a 1,000-query answer (~400 KB) whole was
  // most of the route's time once the matcher was fast.
  const objectJson = new WeakMap<object, string>();
  const jsonOf = (value: object) => {
    let text = objectJson.get(value);
    if (text === undefined) objectJson.set(value, (text = JSON.stringify(value)));
    return text;
  };
  // `{ confidence, category, merchant? }`, the text JSON.stringify(result) writes.
  const resultJson = ({ confidence, category, merchant }: SearchResult) =>
    `{"confidence":${JSON.stringify(confidence)},"category":${jsonOf(category)}${merchant ? `,"merchant":${jsonOf(merchant)}` : ''}}`;
  router.on('POST', '/v1/search', (request) => {
    if (!authorised(request, state)) return;
    const parsed = parseQueries(parseBody(request));
    if (typeof parsed === 'string') return platformError(request, 400, parsed);
    // `{ "id"?, "query", "results" }` per query, in the request's order: JSON.stringify(item) would
    // write the same text, with results reused.
    const items = parsed.map(
      ({ id, query }) =>
        `{${id !== undefined ? `"id":${JSON.stringify(id)},` : ''}"query":${JSON.stringify(query.description)},"results":[${matcher.search(query).map(resultJson).join(',')}]}`,
    );
    if (state.enrichmentFault.reverseOrder) items.reverse();
    sendJsonText(request.res, 200, `{"success":true,"items":[${items.join(',')}]}`);
  });
}

/**
 * The enrichment API takes its own bearer key and nothing else: app credentials (the app id
 * header, Basic auth) are refused even alongside the right key.
 */
function authorised(request: SandboxRequest, state: SandboxState): boolean {
  const headers = request.req.headers;
  if (appIdOf(headers) !== undefined) {
    platformError(request, 401, 'App credentials are not accepted by the enrichment API');
    return false;
  }
  if (headers.authorization !== `Bearer ${state.credentials.enrichmentKey}`) {
    platformError(request, 401, 'Unauthorized');
    return false;
  }
  return true;
}

function parseQueries(body: unknown): { id?: string; query: SearchQuery }[] | string {
  if (!Array.isArray(body)) return 'Request body must be a JSON array of queries';
  if (body.length === 0) return 'At least one query is required';
  if (body.length > SANDBOX_MAX_QUERIES_PER_SEARCH)
    return `At most ${SANDBOX_MAX_QUERIES_PER_SEARCH} queries per request`;
  const queries: { id?: string; query: SearchQuery }[] = [];
  for (const [index, raw] of body.entries()) {
    if (typeof raw !== 'object' || raw === null) return `[${index}] must be an object`;
    const q = raw as Record<string, unknown>;
    if (typeof q.description !== 'string' || q.description.trim() === '')
      return `[${index}].description is a required field`;
    if (q.id !== undefined && typeof q.id !== 'string') return `[${index}].id must be a string`;
    if (q._connection !== undefined && (typeof q._connection !== 'string' || !/^conn_\w+$/.test(q._connection)))
      return `[${index}]._connection must be a connection id`;
    if (q.amount !== undefined && (typeof q.amount !== 'number' || !Number.isFinite(q.amount)))
      return `[${index}].amount must be a number`;
    if (q.direction !== undefined && q.direction !== 'DEBIT' && q.direction !== 'CREDIT')
      return `[${index}].direction must be DEBIT or CREDIT`;
    queries.push({
      id: q.id as string | undefined,
      query: {
        description: q.description,
        amount: q.amount as number | undefined,
        direction: q.direction as SearchQuery['direction'],
        connectionId: q._connection as string | undefined,
      },
    });
  }
  return queries;
}
