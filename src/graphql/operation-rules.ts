import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import {
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import type { GatewayConfig } from '../config/config.js';
import { documentExpansion, maxAliasesRule, maxDepthRule } from './limits.js';

/** Valid documents kept parsed and validated, by text: at most this many characters in all. */
const DOCUMENT_CACHE_CHARS = 4 * 1024 * 1024;

/**
 * A document may expand (fragment spreads inlined) to this many fields whatever it writes, and
 * beyond it to this many per field it writes. The operations on file expand to at most 2-3 per
 * written field; thousands of spreads of one small fragment, or fragments that double at each
 * level, expand to hundreds or thousands.
 */
const EXPANSION_FREE_FIELDS = 2_000;
const EXPANSION_PER_WRITTEN_FIELD = 20;

export interface OperationRulesOptions {
  graphql: GatewayConfig['graphql'];
  /** The longest list any variable may carry (the longest list argument the schema takes). */
  maxListLength: number;
}

/** Errors produced before execution: Apollo's codes on HTTP, the same on the socket. */
const PARSE_FAILED = 'GRAPHQL_PARSE_FAILED';
const VALIDATION_FAILED = 'GRAPHQL_VALIDATION_FAILED';

/**
 * The rules every GraphQL operation passes before it executes, whatever the transport: parse
 * limits, validation (graphql-js's rules, depth, aliases, cost, the introspection switch),
 * schema hints hidden when introspection is off, fragment expansion, and variables checked for
 * size before they are coerced. Apollo applies them on HTTP
 * (`createApolloServer`), the socket through `prepare`; a further transport plugs in here.
 */
export function createOperationRules(options: OperationRulesOptions) {
  const { graphql } = options;
  const costRule = costRuleFor(graphql);
  const validationRules = validationRulesFor(graphql, costRule);
  const allRules = [...specifiedRules, ...validationRules];
  // Thousands of sockets subscribe with a handful of distinct documents: each is parsed and
  // validated once, and they share one document object (which also lets identical subscriptions
  // share executions). Only valid documents are kept: evicting them costs an attacker a full
  // validation per document, as it would without the cache.
  const documents = new LRUCache<string, DocumentNode>({
    maxSize: DOCUMENT_CACHE_CHARS,
    sizeCalculation: (_document, text) => Math.max(1, text.length),
  });
  /** Refuses variables carrying a list longer than any the schema accepts, before coercion. */
  const checkVariables = (variables: unknown): GraphQLError | undefined =>
    longListError(variables, options.maxListLength);

  return {
    hideSchemaDetails: !graphql.introspection,
    checkHttpOperation: subscriptionOverHttpError,
    checkVariables,

    /**
     * Parse and validate a document, for every transport (the operation core). The same text
     * gives the same document object while it is cached.
     */
    prepare(
      schema: GraphQLSchema,
      query: string,
      variables: unknown,
    ): { document: DocumentNode } | { errors: GraphQLError[] } {
      const variablesError = checkVariables(variables);
      const known = documents.get(query);
      if (known) return variablesError ? { errors: [variablesError] } : { document: known };
      const prepared = parseAndValidate(schema, query, graphql, allRules, costRule);
      if ('errors' in prepared) return prepared;
      documents.set(query, prepared.document);
      if (variablesError) return { errors: [variablesError] };
      return prepared;
    },
  };
}

/**
 * The cost limit: counts every fragment spread at its full cost and multiplies by `first`.
 * Reported, not thrown: an exception during validation would be an internal error.
 */
function costRuleFor(graphql: GatewayConfig['graphql']): ValidationRule {
  const costError = (cost: string) =>
    new GraphQLError(`The operation's cost ${cost} exceeds the limit of ${graphql.maxCost}.`, {
      extensions: { code: VALIDATION_FAILED, limit: graphql.maxCost },
    });
  return costLimitRule({
    maxCost: graphql.maxCost,
    propagateOnRejection: false,
    onReject: [
      (context, error) =>
        context?.reportError(costError(/found (\d+(?:\.\d+)?)/.exec(error.message)?.[1] ?? 'unknown')),
    ],
  });
}

/** The validation rules beyond graphql-js's own: depth, aliases, cost, expansion, the introspection switch. */
function validationRulesFor(graphql: GatewayConfig['graphql'], costRule: ValidationRule): ValidationRule[] {
  return [
    maxDepthRule(graphql.maxDepth),
    maxAliasesRule(graphql.maxAliases),
    // A document of thousands of cheap spreads can stay under the cost limit: `checkExpansion` refuses those.
    costRule,
    // Reported as the document is left, after the cost rule's own verdict on it.
    (context) => ({
      Document: {
        leave(document) {
          const error = checkExpansion(document);
          if (error) context.reportError(error);
        },
      },
    }),
    ...(graphql.introspection ? [] : [NoSchemaIntrospectionCustomRule]),
  ];
}

/**
 * Parses and validates `query`. A document that expands out of proportion is not walked through
 * every rule: only the cost limit's verdict and the expansion's are given (the order in which a
 * full validation would report them).
 */
function parseAndValidate(
  schema: GraphQLSchema,
  query: string,
  graphql: GatewayConfig['graphql'],
  rules: ValidationRule[],
  costRule: ValidationRule,
): { document: DocumentNode } | { errors: GraphQLError[] } {
  let document: DocumentNode;
  try {
    document = parse(query, { maxTokens: graphql.maxTokens });
  } catch (error) {
    return {
      errors: [
        withoutHints(
          error instanceof GraphQLError ? error : new GraphQLError('Could not parse the document'),
          PARSE_FAILED,
          graphql.introspection,
        ),
      ],
    };
  }
  const expansionError = checkExpansion(document);
  const errors = expansionError
    ? [...costErrors(schema, document, costRule), expansionError]
    : validate(schema, document, rules);
  if (errors.length > 0)
    return { errors: errors.map((error) => withoutHints(error, VALIDATION_FAILED, graphql.introspection)) };
  return { document };
}

/** The cost rule's verdict alone; a document it cannot walk (not valid otherwise) has none. */
function costErrors(schema: GraphQLSchema, document: DocumentNode, costRule: ValidationRule): readonly GraphQLError[] {
  try {
    return validate(schema, document, [costRule]);
  } catch {
    return [];
  }
}

/**
 * A document whose fragment spreads expand it out of proportion to what it writes is refused
 * before it executes, on every transport (a validation rule). The cost rule alone let through
 * 4,990 spreads of a one-field fragment: 4,991 fields from 2 written.
 */
function checkExpansion(document: DocumentNode): GraphQLError | undefined {
  const { written, expanded } = documentExpansion(document);
  if (expanded <= EXPANSION_FREE_FIELDS || expanded <= written * EXPANSION_PER_WRITTEN_FIELD) return undefined;
  return new GraphQLError(
    `The document expands to ${expanded} fields through its fragments, from ${written} written; at most ${EXPANSION_FREE_FIELDS}, or ${EXPANSION_PER_WRITTEN_FIELD} per written field, are accepted.`,
    {
      extensions: {
        code: VALIDATION_FAILED,
        limit: EXPANSION_FREE_FIELDS,
        expandedFields: expanded,
        writtenFields: written,
      },
    },
  );
}

/** Without introspection, "Did you mean …?" hints would leak the schema anyway. */
function withoutHints(error: GraphQLError, code: string, introspection: boolean): GraphQLError {
  return new GraphQLError(introspection ? error.message : error.message.replace(/ Did you mean .*$/, ''), {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    extensions: { ...error.extensions, code },
  });
}

/**
 * HTTP carries queries and mutations. A subscription sent over HTTP (a client without a socket
 * link, or GraphiQL racing an edit) gets this clear refusal, not an execution that cannot work.
 */
function subscriptionOverHttpError(operation: string | undefined): GraphQLError | undefined {
  if (operation !== 'subscription') return undefined;
  return new GraphQLError(
    'Subscriptions are served over WebSocket (graphql-transport-ws) on this same path, over HTTP with `Accept: multipart/mixed;subscriptionSpec="1.0"` (Apollo\'s multipart protocol), or at /graphql/stream (graphql-sse); not as a plain HTTP request.',
    { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } },
  );
}

function longListError(variables: unknown, maxListLength: number): GraphQLError | undefined {
  const longest = longestList(variables, 0);
  if (longest <= maxListLength) return undefined;
  return new GraphQLError(
    `A variable carries a list of ${longest} items; the most any argument takes is ${maxListLength}.`,
    {
      extensions: {
        code: 'BAD_USER_INPUT',
        limit: maxListLength,
        requested: longest,
        http: { status: 400 },
      },
    },
  );
}

export type OperationRules = ReturnType<typeof createOperationRules>;

/** The longest array anywhere in a JSON value, without recursing past a sane depth. */
function longestList(value: unknown, depth: number): number {
  if (depth > 32 || typeof value !== 'object' || value === null) return 0;
  let longest = Array.isArray(value) ? value.length : 0;
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    if (typeof item === 'object' && item !== null) longest = Math.max(longest, longestList(item, depth + 1));
  }
  return longest;
}
