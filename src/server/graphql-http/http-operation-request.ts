import type { OperationRequest, PreparedOperation } from '../../operation-core/operation-core.js';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const recordOrNull = (value: unknown) => value === undefined || value === null || isRecord(value);

/** A search parameter given at most once, JSON-decoded when asked; `false` when malformed. */
function param(params: URLSearchParams, name: string, json: boolean): unknown {
  const values = params.getAll(name);
  if (values.length > 1) return false;
  if (values.length === 0) return undefined;
  if (!json) return values[0];
  try {
    const parsed: unknown = JSON.parse(values[0]!);
    return isRecord(parsed) ? parsed : false;
  } catch {
    return false;
  }
}

/**
 * The operation a GraphQL-over-HTTP request carries (a POST's JSON body, or a GET's parameters),
 * as the operation core reads it. Undefined for a request that is not well formed GraphQL over
 * HTTP (a body that is not an object, `variables` that are not one, a parameter given twice):
 * Apollo refuses those with its own messages before it could parse anything.
 */
export function operationRequestOf(method: string, body: unknown, url: URL): OperationRequest | undefined {
  if (method === 'POST') {
    if (!isRecord(body) || Object.keys(body).length === 0) return undefined;
    const { query, variables, operationName, extensions, documentId } = body;
    if (query !== undefined && typeof query !== 'string') return undefined;
    if (!recordOrNull(variables) || !recordOrNull(extensions)) return undefined;
    if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return undefined;
    return {
      query,
      variables,
      operationName,
      extensions,
      documentId,
    };
  }
  const params = new URLSearchParams(url.search);
  const request = {
    query: param(params, 'query', false),
    operationName: param(params, 'operationName', false),
    variables: param(params, 'variables', true),
    extensions: param(params, 'extensions', true),
    documentId: param(params, 'documentId', false),
  };
  if (Object.values(request).includes(false)) return undefined;
  return request as OperationRequest;
}

/**
 * Whether the operation core decides this request: with TRUSTED_DOCUMENTS every request (only the
 * manifest's operations run); otherwise one that sends its text. A request with neither a text nor
 * an admitted id (or with Apollo's persisted-query extension, which this gateway does not serve
 * without a manifest) is Apollo's to refuse, with the codes its clients know
 * (PERSISTED_QUERY_NOT_SUPPORTED makes Apollo Client send the text from then on).
 */
export function coreDecides(request: OperationRequest, trusted: boolean): boolean {
  if (trusted) return true;
  // As Apollo reads it: a falsy extension (null, false) is none.
  const persisted = isRecord(request.extensions) && Boolean(request.extensions.persistedQuery);
  return typeof request.query === 'string' && !persisted;
}

/**
 * The request as Apollo is handed it once the core prepared it: the admitted text in place of
 * whatever named it (a manifest id, in either protocol), the rest as sent.
 */
export function preparedRequestFor(
  method: string,
  body: unknown,
  url: URL,
  prepared: PreparedOperation,
): { body: unknown; search: string } {
  if (method === 'POST') {
    const { documentId: _id, extensions, ...rest } = body as Record<string, unknown>;
    return { body: { ...rest, query: prepared.text, ...withoutPersisted(extensions) }, search: url.search };
  }
  const params = new URLSearchParams(url.search);
  params.set('query', prepared.text);
  params.delete('documentId');
  const extensions = withoutPersisted(param(params, 'extensions', true)).extensions;
  if (extensions) params.set('extensions', JSON.stringify(extensions));
  else params.delete('extensions');
  return { body, search: `?${params}` };
}

function withoutPersisted(extensions: unknown): { extensions?: Record<string, unknown> } {
  if (!isRecord(extensions)) return {};
  const { persistedQuery: _persisted, ...rest } = extensions;
  return Object.keys(rest).length > 0 ? { extensions: rest } : {};
}
