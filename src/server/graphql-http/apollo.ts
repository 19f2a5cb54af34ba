import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { GatewayContext } from '../../graphql/context.js';
import { formatError, reportExecutionErrors } from '../../graphql/format-error.js';
import type { OperationRules } from '../../graphql/operation-rules.js';
import type { TrustedDocuments } from '../../graphql/trusted-documents.js';
import { noteResolvedOperation, operationOutcome } from '../observability/operation-telemetry.js';

/** Variables are coerced at execution; their size is checked as soon as the operation is known. */
function httpOperationRulesPlugin(rules: OperationRules): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, operation }) {
          const error = rules.checkHttpOperation(operation?.operation) ?? rules.checkVariables(request.variables);
          if (error) throw error;
        },
      };
    },
  };
}

/** Counts each operation by its type and outcome (OK, or the first error's code); names and reports it. */
function operationMetricsPlugin(
  onOperation: (type: string, outcome: string) => void,
): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        // The request's server span and its access log line are named after the operation.
        async didResolveOperation({ operation, operationName, contextValue }) {
          if (operation) noteResolvedOperation(contextValue.requestScope, operation.operation, operationName);
        },
        // Before formatting masks them, with the request's logger (its id on every line).
        async didEncounterErrors({ errors, contextValue }) {
          reportExecutionErrors(contextValue.logger, errors);
        },
        async willSendResponse({ operation, response }) {
          const errors = response.body.kind === 'single' ? response.body.singleResult.errors : undefined;
          onOperation(operation?.operation ?? 'unknown', operationOutcome(errors));
        },
      };
    },
  };
}

/** Apollo Server with this gateway's overrides of its defaults (see README, "Limits"). */
export function createApolloServer(
  schema: GraphQLSchema,
  rules: OperationRules,
  logger: Logger,
  onOperation: (type: string, outcome: string) => void = () => undefined,
  trusted?: TrustedDocuments,
): ApolloServer<GatewayContext> {
  return new ApolloServer<GatewayContext>({
    schema,
    // The operation rules carry the introspection switch, for HTTP and the socket alike.
    introspection: true,
    csrfPrevention: true,
    includeStacktraceInErrorResponses: false,
    hideSchemaDetailsFromClientErrors: rules.hideSchemaDetails,
    formatError,
    validationRules: rules.validationRules,
    parseOptions: rules.parseOptions,
    // With TRUSTED_DOCUMENTS, Apollo's persisted-query protocol over the manifest (the HTTP handler
    // lets only its ids through; nothing is registered). Without it, off: an app built with
    // persisted ids (examples/web) is told PERSISTED_QUERY_NOT_SUPPORTED and sends its text from
    // then on, and no client can fill the gateway's memory with registered documents.
    persistedQueries: trusted ? { cache: trusted.apolloCache, ttl: null } : false,
    // GraphiQL is served by the gateway itself (no CDN), so Apollo's landing page is off. Signals
    // belong to main.ts, which drains in order; Apollo must not stop itself on SIGTERM.
    // No cache hints are set anywhere: the cache-control plugin would only cost CPU (~10% at 1,000 lookups).
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      httpOperationRulesPlugin(rules),
      operationMetricsPlugin(onOperation),
    ],
    stopOnTerminationSignals: false,
    logger: {
      debug: (message) => logger.debug(message),
      info: (message) => logger.info(message),
      warn: (message) => logger.warn(message),
      error: (message) => logger.error(message),
    },
  });
}
