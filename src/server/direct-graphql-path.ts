import Negotiator from 'negotiator';
import {
  GraphQLError,
  OperationTypeNode,
  isNonNullType,
  valueFromAST,
  type DocumentNode,
  type GraphQLFormattedError,
  type GraphQLSchema,
} from 'graphql';
import type { OperationRules } from '../graphql/operation-rules.js';
import type { Logger } from '../lib/logger.js';
import type { RequestScope } from '../lib/request-scope.js';
import { coerceOrdinaryInput, NOT_ORDINARY } from './direct-input-coercion.js';
import { executeDirectPlan } from './direct-execution.js';
import { planDirectExecution, type DirectPlan } from './direct-plan.js';
import { noteResolvedOperation, operationOutcome } from './operation-telemetry.js';

/**
 * The root fields served directly, where per-item overhead is most of the cost: enrichment, and
 * pages of transactions (each row's `enrichment` included).
 */
const DIRECT_ROOT_FIELDS: ReadonlySet<string> = new Set(['enrich', 'transactions']);

const APPLICATION_JSON = 'application/json; charset=utf-8';
const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json; charset=utf-8';
const JSON_CALLBACK = 'application/json; callbackSpec=1.0; charset=utf-8';
const BODY_KEYS: ReadonlySet<string> = new Set(['query', 'variables', 'operationName']);
/**
 * A query whose first root field is one of DIRECT_ROOT_FIELDS (after `__typename`, perhaps
 * aliased): only such documents are parsed and validated here. Anything else goes straight to
 * Apollo, so a document is not validated twice (here and by Apollo) unless it looks like this and
 * turns out to be something the direct path does not serve.
 */
const LOOKS_DIRECT = new RegExp(
  `^\\s*(?:query\\b[^{]*)?\\{\\s*(?:__typename\\s+)?(?:\\w+\\s*:\\s*)?(?:${[...DIRECT_ROOT_FIELDS].join('|')})\\s*[({]`,
);
/** Distinct Accept headers remembered; clients send a handful. */
const MAX_REMEMBERED_ACCEPT = 64;

export interface DirectGraphQLPathOptions {
  schema: GraphQLSchema;
  rules: OperationRules;
  /** The same error shaping and reporting Apollo applies (format-error.ts). */
  formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
  reportErrors: (logger: Logger, errors: readonly unknown[]) => void;
  onOperation: (type: string, outcome: string) => void;
}

export interface DirectResponse {
  contentType: string;
  body: string;
}

export type DirectGraphQLPath = ReturnType<typeof createDirectGraphQLPath>;

/**
 * A shorter way through for the gateway's hottest operations, queries of `enrich` and
 * `transactions` fields (a page of enriched rows): the same document cache and validation rules as
 * every transport, the schema's own resolvers (so the access gate, the request's budget,
 * validation, paging and batching are the ones Apollo would run), the same error formatting,
 * metrics, span and access-log naming, and a byte-identical response
 * (test/direct-graphql-path.test.ts compares the two). What it skips is the general machinery:
 * Apollo's request pipeline, graphql-js's variable coercion and execution bookkeeping (argument
 * values and a resolver call for every field of every row), and type-graphql's per-field wrappers
 * on plain properties. A request it does not recognise as ordinary, anything that would be an
 * error before execution included, goes to Apollo unchanged, so error answers stay Apollo's.
 */
export function createDirectGraphQLPath(options: DirectGraphQLPathOptions) {
  const plans = new WeakMap<DocumentNode, DirectPlan | null>();
  const contentTypes = new Map<string, string | null>();

  /** Apollo's choice for a single result (chooseContentTypeForSingleResultResponse). */
  function contentTypeFor(accept: string | undefined): string | null {
    if (!accept) return APPLICATION_JSON;
    let chosen = contentTypes.get(accept);
    if (chosen === undefined) {
      chosen =
        new Negotiator({ headers: { accept } }).mediaType([APPLICATION_JSON, GRAPHQL_RESPONSE_JSON, JSON_CALLBACK]) ??
        null;
      if (contentTypes.size >= MAX_REMEMBERED_ACCEPT) contentTypes.clear();
      contentTypes.set(accept, chosen);
    }
    // The callback media type, or none acceptable: Apollo's answer.
    return chosen === APPLICATION_JSON || chosen === GRAPHQL_RESPONSE_JSON ? chosen : null;
  }

  function planFor(document: DocumentNode): DirectPlan | null {
    let plan = plans.get(document);
    if (plan === undefined) {
      plan = planDirectExecution(options.schema, document, DIRECT_ROOT_FIELDS) ?? null;
      plans.set(document, plan);
    }
    return plan;
  }

  function coerceVariables(plan: DirectPlan, given: unknown): Record<string, unknown> | undefined {
    // graphql-js's rules: no variables at all is an empty set, and undeclared ones are ignored.
    const provided = given ?? {};
    if (typeof provided !== 'object' || Array.isArray(provided)) return undefined;
    const values: Record<string, unknown> = {};
    for (const [name, variable] of plan.variables) {
      const value = Object.hasOwn(provided, name) ? (provided as Record<string, unknown>)[name] : undefined;
      if (value === undefined) {
        // Left out: its default, or (nullable) nothing, so the argument takes its own default.
        // A non-null one left out is graphql-js's error to report.
        if (variable.defaultValue) values[name] = valueFromAST(variable.defaultValue, variable.type);
        else if (isNonNullType(variable.type)) return undefined;
        continue;
      }
      const coerced = coerceOrdinaryInput(value, variable.type);
      if (coerced === NOT_ORDINARY) return undefined;
      values[name] = coerced;
    }
    return values;
  }

  /**
   * Apollo's enrichment of an error before formatting (errorNormalize.ts): a code, always. Apollo
   * would also turn an `extensions.http` into the response's status; only the operation rules'
   * pre-execution errors carry one, and those requests never reach this path.
   */
  function format(error: GraphQLError): GraphQLFormattedError {
    try {
      const { http: _http, ...extensions } = error.extensions as Record<string, unknown>;
      const enriched = {
        ...error.toJSON(),
        extensions: { ...extensions, code: extensions.code ?? 'INTERNAL_SERVER_ERROR' },
      };
      return options.formatError(enriched, error);
    } catch {
      return { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
    }
  }

  return {
    /**
     * The response to a parsed JSON POST body, or undefined when Apollo should answer it.
     * `context` is asked for only once the request is known to be served here.
     */
    async serve(
      accept: string | undefined,
      body: unknown,
      context: () => unknown,
      scope: RequestScope,
    ): Promise<DirectResponse | undefined> {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
      const request = body as Record<string, unknown>;
      for (const key of Object.keys(request)) if (!BODY_KEYS.has(key)) return undefined;
      const { query, variables, operationName } = request;
      if (typeof query !== 'string' || !LOOKS_DIRECT.test(query)) return undefined;
      if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return undefined;
      const contentType = contentTypeFor(accept);
      if (!contentType) return undefined;

      const prepared = options.rules.prepare(options.schema, query, variables);
      if (!('document' in prepared)) return undefined;
      const plan = planFor(prepared.document);
      if (!plan || (typeof operationName === 'string' && operationName !== plan.operationName)) return undefined;
      const variableValues = coerceVariables(plan, variables);
      if (!variableValues) return undefined;

      noteResolvedOperation(scope, OperationTypeNode.QUERY, plan.operationName);
      const result = await executeDirectPlan(options.schema, plan, variableValues, context());
      let errors: GraphQLFormattedError[] | undefined;
      if (result.errors.length > 0) {
        options.reportErrors(scope.log, result.errors);
        errors = result.errors.map(format);
      }
      options.onOperation(OperationTypeNode.QUERY, operationOutcome(errors));
      return { contentType, body: `${JSON.stringify({ errors, data: result.data })}\n` };
    },
  };
}
