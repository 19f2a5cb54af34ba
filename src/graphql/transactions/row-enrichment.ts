import {
  getDirectiveValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  type FieldNode,
  type GraphQLResolveInfo,
  type SelectionSetNode,
} from 'graphql';
import type { GatewayContext } from '../context.js';
import { toEnrichmentResult } from '../enrichment/enrichment.mapper.js';
import type { EnrichmentResult } from '../enrichment/enrichment.type.js';
import { ErrorCode, gatewayError } from '../errors.js';
import type { Transaction } from './transaction.type.js';

/**
 * What `Transaction.enrichment` reads of its row. Not the `Transaction` class itself: for a
 * `@Root()` of a class type, type-graphql copies every row into a new instance first (a hundred
 * copies per page).
 */
export type EnrichedRow = Pick<Transaction, 'id' | 'description' | 'amount' | 'direction' | 'bankId'>;

/** A row's enrichment once its page has asked for it: the answer, or the error its field gives. */
export type SettledEnrichment = { value: EnrichmentResult } | { error: unknown };

/**
 * A page's row, which holds its enrichment once the page has asked for it. A slot on the row
 * rather than a WeakMap beside it: a WeakMap's `set` cost about 1% of a page. Rows that reach
 * the field from elsewhere (events) have no slot and go through the loader.
 */
export interface SettlingRow extends EnrichedRow {
  settledEnrichment?: SettledEnrichment;
}

/** One row's enrichment through the request's loader: counted against its limit, joined to its batch. */
export async function lookUpEnrichment(row: EnrichedRow, context: GatewayContext): Promise<EnrichmentResult> {
  if (!context.loaders.enrichment.reserve(1))
    throw gatewayError(ErrorCode.BAD_USER_INPUT, 'This request enriches more transactions than one request may.', {
      reason: 'ENRICHMENT_LIMIT',
    });
  const results = await context.loaders.enrichment.load({
    description: row.description,
    amount: row.amount,
    direction: row.direction,
    bankId: /^conn_[A-Za-z0-9]{1,64}$/.test(row.bankId) ? row.bankId : undefined,
  });
  return toEnrichmentResult(row.id, row.description, results);
}

/**
 * Asks for every row's enrichment before the page is returned, when the query selects it. The
 * lookups join one batch, as they would field by field; what changes is that execution then
 * completes the page's rows without a promise each (graphql-js builds a promise per row object,
 * and one per list, as soon as one field of a row is asynchronous).
 */
export async function settleEnrichments(rows: readonly SettlingRow[], context: GatewayContext): Promise<void> {
  await Promise.all(
    rows.map((row) =>
      lookUpEnrichment(row, context).then(
        (value) => (row.settledEnrichment = { value }),
        (error: unknown) => (row.settledEnrichment = { error }),
      ),
    ),
  );
}

/** The row's enrichment as its page settled it, or through the loader when the page did not ask ahead. */
export function enrichmentOf(row: SettlingRow, context: GatewayContext): EnrichmentResult | Promise<EnrichmentResult> {
  const outcome = row.settledEnrichment;
  if (!outcome) return lookUpEnrichment(row, context);
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

/**
 * Whether the field's selection reaches `enrichment` through one of `paths` (for `transactions`,
 * `nodes` or `edges.node`; fragments included), skipping what `@skip` / `@include` leave out: a page must not
 * spend lookups, or the request's limit, on a field nobody reads.
 */
export function selectsRowEnrichment(
  info: GraphQLResolveInfo,
  paths: ReadonlyArray<readonly string[]> = [['nodes'], ['edges', 'node']],
): boolean {
  return info.fieldNodes.some((field) =>
    paths.some((path) => reaches(info, field.selectionSet, [...path, 'enrichment'])),
  );
}

function reaches(info: GraphQLResolveInfo, set: SelectionSetNode | undefined, path: readonly string[]): boolean {
  if (!set || path.length === 0) return path.length === 0;
  return set.selections.some((selection) => {
    if (!included(info, selection)) return false;
    if (selection.kind === Kind.FIELD)
      return selection.name.value === path[0] && reaches(info, selection.selectionSet, path.slice(1));
    if (selection.kind === Kind.INLINE_FRAGMENT) return reaches(info, selection.selectionSet, path);
    return reaches(info, info.fragments[selection.name.value]?.selectionSet, path);
  });
}

function included(info: GraphQLResolveInfo, node: Pick<FieldNode, 'directives'>): boolean {
  if (!node.directives?.length) return true;
  if (getDirectiveValues(GraphQLSkipDirective, node, info.variableValues)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, info.variableValues)?.if !== false;
}
