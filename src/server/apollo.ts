import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { GraphQLSchema } from 'graphql';
import type { GatewayConfig } from '../config/config.js';
import type { Logger } from '../lib/logger.js';
import type { GatewayContext } from '../graphql/context.js';
import { createFormatError } from '../graphql/format-error.js';
import { maxAliasesRule, maxDepthRule } from '../graphql/limits.js';

/** Apollo Server with this gateway's overrides of its defaults (see README, "Limits"). */
export function createApolloServer(schema: GraphQLSchema, config: GatewayConfig['graphql'], logger: Logger): ApolloServer<GatewayContext> {
  return new ApolloServer<GatewayContext>({
    schema,
    introspection: config.introspection,
    csrfPrevention: true,
    includeStacktraceInErrorResponses: false,
    // Without introspection, "Did you mean …?" hints would leak the schema anyway.
    hideSchemaDetailsFromClientErrors: !config.introspection,
    status400ForVariableCoercionErrors: true,
    formatError: createFormatError(logger),
    validationRules: [maxDepthRule(config.maxDepth), maxAliasesRule(config.maxAliases)],
    parseOptions: { maxTokens: config.maxTokens },
    // GraphiQL is served by the gateway itself (no CDN), so Apollo's landing page is off.
    plugins: [ApolloServerPluginLandingPageDisabled()],
    logger: {
      debug: (message) => logger.debug(message),
      info: (message) => logger.info(message),
      warn: (message) => logger.warn(message),
      error: (message) => logger.error(message),
    },
  });
}
