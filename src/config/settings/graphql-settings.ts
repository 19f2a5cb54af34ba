import { bool, int, setting, text, type SettingGroup } from '../setting-types.js';

export const GRAPHQL_SETTINGS = {
  title: 'GraphQL',
  settings: [
    setting({
      name: 'GRAPHQL_INTROSPECTION',
      type: bool(),
      defaultText: '`true` on the sandbox, else `false`',
      usedBy: 'schema introspection',
      description: 'When off, validation errors also drop "Did you mean …" hints.',
      envNote: 'default: true on the sandbox only',
    }),
    setting({
      name: 'GRAPHIQL_ENABLED',
      type: bool(),
      defaultText: 'the same as `GRAPHQL_INTROSPECTION`',
      usedBy: 'GraphiQL at `GET /graphql`',
      description: 'Serve GraphiQL to browsers at `GET /graphql`.',
      envNote: 'default: same as GRAPHQL_INTROSPECTION',
    }),
    setting({
      name: 'TRUSTED_DOCUMENTS',
      type: text(),
      defaultText: 'unset (any valid operation runs)',
      bounds:
        'a path to a JSON file of `"sha256:<hex>": "<document>"` entries; read at start, which stops on a missing or malformed file',
      usedBy: 'GraphQL over HTTP and WebSocket, GraphiQL, the readiness report',
      description:
        "Run only the operations in this manifest (the app's `persisted-documents.json`), named by hash: `documentId`, or `extensions.persistedQuery.sha256Hash`. Anything else is refused before it is parsed (`TRUSTED_DOCUMENT_REQUIRED`, `PERSISTED_QUERY_NOT_FOUND`). See [Frontend clients](../guides/frontend-clients.md#trusted-documents).",
      example: './examples/web/src/__generated__/persisted-documents.json',
      envNote: "run only the app's operations (its persisted-documents manifest)",
    }),
    setting({
      name: 'GRAPHIQL_WITH_TRUSTED_DOCUMENTS',
      type: bool(),
      default: false,
      bounds: 'boolean; only with `TRUSTED_DOCUMENTS`',
      usedBy: 'GraphiQL at `GET /graphql`',
      description:
        "Keep GraphiQL on (as `GRAPHIQL_ENABLED` says) although `TRUSTED_DOCUMENTS` is set. It can run only the manifest's documents, pasted exactly.",
    }),
    setting({
      name: 'GRAPHQL_MAX_DEPTH',
      type: int(2, 100),
      default: 12,
      usedBy: 'the operation rules (HTTP and socket)',
      description: 'Deepest field nesting allowed.',
    }),
    setting({
      name: 'GRAPHQL_MAX_ALIASES',
      type: int(1, 1000),
      default: 30,
      usedBy: 'the operation rules',
      description: 'Most aliases in one document.',
    }),
    setting({
      name: 'GRAPHQL_MAX_TOKENS',
      type: int(100, 1_000_000),
      default: 10_000,
      usedBy: 'the parser',
      description: 'Parser token limit.',
    }),
    setting({
      name: 'GRAPHQL_MAX_COST',
      type: int(10, 100_000_000),
      default: 50_000,
      usedBy: 'the operation rules',
      description:
        "Cost limit per operation (graphql-armor's model: objects 2, scalars 1, ×1.5 per level, every fragment spread counted, lists multiplied by a literal `first`). A page of 100 enriched transactions costs about 10,000.",
    }),
  ],
} as const satisfies SettingGroup;
