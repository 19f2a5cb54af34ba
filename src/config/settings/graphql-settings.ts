import { setting, bool, int, type SettingGroup } from '../setting-types.js';

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
