import type { ServerResponse } from 'node:http';
import { ApolloServer, type ApolloServerPlugin, type HTTPGraphQLRequest } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import type { DocumentNode, GraphQLSchema } from 'graphql';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { GatewayContext } from '../../graphql/context.js';
import { formatError, reportExecutionErrors } from '../../graphql/format-error.js';
import type { OperationRules } from '../../graphql/operation-rules.js';
import type { OperationCore } from '../../operation-core/operation-core.js';
import { noteResolvedOperation, operationOutcome } from '../../operation-core/operation-telemetry.js';

/**
 * Hands Apollo the document the operation core admitted and prepared for this request, so Apollo
 * never parses or validates one itself: it has no cache, rules or persisted queries of its own to
 * drift from the other transports'. A document Apollo would have to parse is a wiring bug: refused.
 */
function preparedDocumentPlugin(
  documents: WeakMap<HTTPGraphQLRequest, DocumentNode>,
): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveSource(requestContext) {
          const document = requestContext.request.http && documents.get(requestContext.request.http);
          // Apollo skips parsing and validation for a request whose document is already known.
          if (document) (requestContext as { document?: DocumentNode }).document = document;
        },
        async parsingDidStart() {
          throw new Error('Apollo was handed a document the operation core did not prepare');
        },
      };
    },
  };
}

/** HTTP carries queries and mutations (after Apollo's own refusal of a non-query GET, with its 405). */
function httpOperationPlugin(rules: OperationRules): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation }) {
          const error = rules.checkHttpOperation(operation?.operation);
          if (error) throw error;
        },
      };
    },
  };
}

/** Names the request's span and access line after the operation; reports errors; counts each operation. */
function operationReportPlugin(core: OperationCore): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, operationName, contextValue }) {
          if (operation) noteResolvedOperation(contextValue.requestScope, operation.operation, operationName);
        },
        // Before formatting masks them, with the request's logger (its id on every line).
        async didEncounterErrors({ errors, contextValue }) {
          reportExecutionErrors(contextValue.logger, errors);
        },
        async willSendResponse({ operation, response }) {
          const errors = response.body.kind === 'single' ? response.body.singleResult.errors : undefined;
          core.count('http', operation?.operation ?? 'unknown', operationOutcome(errors));
        },
      };
    },
  };
}

/**
 * Apollo Server as the HTTP adapter for queries and mutations. What Apollo still does: its HTTP
 * protocol (the request's shape and its refusals, CSRF prevention behind the edge's own check,
 * a non-query GET refused, content negotiation), variable coercion, execution, masking through
 * the gateway's `formatError`, and the response. What the operation core does instead: admission
 * (trusted documents), the operation rules and the parsed-document cache (see
 * preparedDocumentPlugin), error reporting and counting.
 */
export function createApolloAdapter(schema: GraphQLSchema, rules: OperationRules, core: OperationCore, logger: Logger) {
  const documents = new WeakMap<HTTPGraphQLRequest, DocumentNode>();
  const apollo = new ApolloServer<GatewayContext>({
    schema,
    // The operation rules carry the introspection switch, for every transport.
    introspection: true,
    csrfPrevention: true,
    includeStacktraceInErrorResponses: false,
    hideSchemaDetailsFromClientErrors: rules.hideSchemaDetails,
    formatError,
    // The core admits and caches documents: Apollo keeps none (its store would replace the core's).
    documentStore: null,
    persistedQueries: false,
    // GraphiQL is served by the gateway itself (no CDN), so Apollo's landing page is off. Signals
    // belong to main.ts, which drains in order; Apollo must not stop itself on SIGTERM.
    // No cache hints are set anywhere: the cache-control plugin would only cost CPU (~10% at 1,000 lookups).
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      preparedDocumentPlugin(documents),
      httpOperationPlugin(rules),
      operationReportPlugin(core),
    ],
    stopOnTerminationSignals: false,
    logger: {
      debug: (message) => logger.debug(message),
      info: (message) => logger.info(message),
      warn: (message) => logger.warn(message),
      error: (message) => logger.error(message),
    },
  });

  return {
    apollo,
    /**
     * Runs a request through Apollo and writes its answer. `document`: what the core prepared;
     * undefined for a request Apollo refuses before it would need one (malformed, or no text).
     * `beforeWrite`: told once the answer is known, before anything of it is written.
     */
    async answer(
      res: ServerResponse,
      request: HTTPGraphQLRequest,
      document: DocumentNode | undefined,
      context: () => Promise<GatewayContext>,
      beforeWrite?: () => void,
    ): Promise<void> {
      if (document) documents.set(request, document);
      const response = await apollo.executeHTTPGraphQLRequest({ httpGraphQLRequest: request, context });
      beforeWrite?.();
      for (const [name, value] of response.headers) res.setHeader(name, value);
      if (!response.headers.has('cache-control')) res.setHeader('cache-control', 'no-store');
      res.statusCode = response.status ?? 200;
      if (response.body.kind === 'complete') return void res.end(response.body.string);
      for await (const chunk of response.body.asyncIterator) res.write(chunk);
      res.end();
    },
  };
}

export type ApolloAdapter = ReturnType<typeof createApolloAdapter>;
