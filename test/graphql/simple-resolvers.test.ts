import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { EnrichmentQueryInput } from '../../src/graphql/enrichment/enrichment.input.js';
import { buildGatewaySchema } from '../../src/graphql/schema.js';

interface TypeMetadata {
  target: { name: string };
  simpleResolvers?: boolean;
}
interface FieldLikeMetadata {
  target: { name: string };
  fieldName?: string;
  name?: string;
  roles?: unknown[];
  middlewares?: unknown[];
}
interface ParamMetadata {
  kind: string;
  target: { name: string };
  methodName: string;
  getType?: () => unknown;
}
interface MetadataStorage {
  queries: Array<FieldLikeMetadata & { methodName: string }>;
  params: ParamMetadata[];
  objectTypes: TypeMetadata[];
  fields: FieldLikeMetadata[];
  authorizedFields: FieldLikeMetadata[];
  middlewares: FieldLikeMetadata[];
}

// type-graphql keeps its decorator metadata in this global (not exported from the package).
const metadata = () =>
  (globalThis as unknown as { TypeGraphQLMetadataStorage: MetadataStorage }).TypeGraphQLMetadataStorage;

describe('object types with simple resolvers', () => {
  it('have no field that needs @Authorized or middleware (type-graphql would silently skip it)', async () => {
    await buildGatewaySchema({ enrichment: { maxQueriesPerRequest: 10 } });
    const storage = metadata();
    const simple = new Set(storage.objectTypes.filter((type) => type.simpleResolvers).map((type) => type.target));
    expect([...simple].map((target) => target.name)).toEqual(
      expect.arrayContaining(['Transaction', 'TransactionPage', 'EnrichmentResult', 'Merchant']),
    );
    const offending = [
      ...storage.fields.filter((field) => (field.roles?.length ?? 0) > 0 || (field.middlewares?.length ?? 0) > 0),
      ...storage.authorizedFields,
      ...storage.middlewares,
    ]
      .filter((entry) => simple.has(entry.target))
      .map((entry) => `${entry.target.name}.${entry.fieldName ?? entry.name}`);
    expect(offending).toEqual([]);
  });

  it('are handed their rows as they are, and input objects are copied without deletes', async () => {
    await buildGatewaySchema({ enrichment: { maxQueriesPerRequest: 10 } });
    // A @Root() typed with a class makes type-graphql copy every row into a new instance first.
    const classRoots = metadata()
      .params.filter((param) => param.kind === 'root' && typeof param.getType?.() === 'function')
      .map((param) => `${param.target.name}.${param.methodName}`);
    expect(classRoots).toEqual([]);
    // type-graphql copies each input object into a new instance and deletes every own property the
    // value lacks; with useDefineForClassFields off, a fresh instance has none to delete.
    expect(Object.keys(new EnrichmentQueryInput())).toEqual([]);
  });

  it('leave Query.enrich, which graphql-js calls without type-graphql, no @Authorized or middleware to skip', async () => {
    await buildGatewaySchema({ enrichment: { maxQueriesPerRequest: 10 } });
    const storage = metadata();
    const enrich = storage.queries.filter((query) => query.methodName === 'enrich');
    expect(enrich.length).toBeGreaterThan(0);
    const targets = new Set(enrich.map((query) => query.target));
    const offending = [
      ...enrich.filter((query) => (query.roles?.length ?? 0) > 0 || (query.middlewares?.length ?? 0) > 0),
      ...[...storage.authorizedFields, ...storage.middlewares].filter((entry) => targets.has(entry.target)),
    ];
    expect(offending).toEqual([]);
  });
});
