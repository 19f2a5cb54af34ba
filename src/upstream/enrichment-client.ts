import type { Logger } from '@open-finance-gateway/common/logger';
import type {
  PlatformCategory,
  PlatformEnrichmentItem,
  PlatformEnrichmentQuery,
  PlatformEnrichmentResult,
  PlatformMerchant,
} from './platform-types.js';
import { UpstreamError } from './upstream-error.js';
import { httpStatusError, type UpstreamHttp } from './upstream-http.js';

export interface EnrichmentClient {
  /**
   * One `POST /v1/search` call. Items come back as sent by the platform: match them by `id`.
   * `requestId` goes upstream as `x-request-id`.
   */
  search(queries: PlatformEnrichmentQuery[], requestId?: string): Promise<PlatformEnrichmentItem[]>;
}

/**
 * The enrichment API is a separate service with its own key: this client sends that key and
 * nothing else, so app credentials and user tokens never reach it.
 */
export function createEnrichmentClient(http: UpstreamHttp, apiKey: string, logger: Logger): EnrichmentClient {
  return {
    async search(queries, requestId) {
      const response = await http.send({
        method: 'POST',
        path: '/v1/search',
        headers: { authorization: `Bearer ${apiKey}` },
        json: queries,
        requestId,
      });
      if (response.status < 200 || response.status >= 300)
        throw httpStatusError(http.name, 'POST /v1/search', response);
      return parseSearchResponse(response.body, http.name, logger, requestId);
    },
  };
}

function parseSearchResponse(
  body: unknown,
  upstream: string,
  logger: Logger,
  requestId: string | undefined,
): PlatformEnrichmentItem[] {
  const record = body as { success?: unknown; items?: unknown } | undefined;
  if (!record || record.success === false || !Array.isArray(record.items)) {
    throw new UpstreamError(upstream, 'bad_response', 'search response has no items array');
  }
  const items: PlatformEnrichmentItem[] = [];
  let dropped = 0;
  for (const raw of record.items as unknown[]) {
    if (!isObject(raw) || !Array.isArray(raw.results)) {
      dropped += 1;
      continue;
    }
    const given = raw.results as unknown[];
    let results: PlatformEnrichmentResult[];
    // The usual answer is already the shape: checked in place, kept as parsed (no copy).
    if (given.every(isWellFormedResult)) results = given;
    else {
      results = [];
      for (const result of given) {
        const parsed = parseResult(result);
        if (parsed) results.push(parsed);
        else dropped += 1;
      }
    }
    // An item already in the contract's shape is kept too: a thousand lookups, a thousand copies.
    if (results === given && typeof raw.query === 'string' && (raw.id === undefined || typeof raw.id === 'string'))
      items.push(raw as unknown as PlatformEnrichmentItem);
    else
      items.push({
        id: typeof raw.id === 'string' ? raw.id : undefined,
        query: typeof raw.query === 'string' ? raw.query : '',
        results,
      });
  }
  // Extra or missing optional fields are normal for this API (it is in beta); say so, don't fail.
  if (dropped > 0) logger.warn({ requestId, upstream, dropped }, 'ignored malformed enrichment items or results');
  return items;
}

/**
 * A result that `parseResult` would copy field for field: a confidence, a category with an id, a
 * name and groups that each have an id and a name, and a merchant (if any) whose known fields are
 * strings or absent. Fields the contract does not name may be present; nothing reads them.
 */
function isWellFormedResult(raw: unknown): raw is PlatformEnrichmentResult {
  if (!isObject(raw) || typeof raw.confidence !== 'number' || !isObject(raw.category)) return false;
  const category = raw.category;
  if (typeof category._id !== 'string' || typeof category.name !== 'string' || !isObject(category.groups)) return false;
  for (const group of Object.values(category.groups))
    if (!isObject(group) || typeof group._id !== 'string' || typeof group.name !== 'string') return false;
  const merchant = raw.merchant;
  if (merchant === undefined) return true;
  return (
    isObject(merchant) &&
    stringOrAbsent(merchant._id) &&
    stringOrAbsent(merchant.name) &&
    stringOrAbsent(merchant.logo) &&
    stringOrAbsent(merchant.website)
  );
}

const stringOrAbsent = (value: unknown) => value === undefined || typeof value === 'string';

/** A result copied into the contract's shape, malformed parts left out; undefined when unusable. */
function parseResult(raw: unknown): PlatformEnrichmentResult | undefined {
  if (!isObject(raw) || typeof raw.confidence !== 'number' || !isObject(raw.category)) return undefined;
  const category = raw.category;
  if (typeof category._id !== 'string' || typeof category.name !== 'string') return undefined;
  const groups: PlatformCategory['groups'] = {};
  if (isObject(category.groups)) {
    for (const [grouping, group] of Object.entries(category.groups)) {
      if (isObject(group) && typeof group._id === 'string' && typeof group.name === 'string')
        groups[grouping] = { _id: group._id, name: group.name };
    }
  }
  let merchant: PlatformMerchant | undefined;
  if (isObject(raw.merchant)) {
    const m = raw.merchant;
    merchant = {
      _id: optionalString(m._id),
      name: optionalString(m.name),
      logo: optionalString(m.logo),
      website: optionalString(m.website),
    };
  }
  return { confidence: raw.confidence, category: { _id: category._id, name: category.name, groups }, merchant };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
