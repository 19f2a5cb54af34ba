import { describe, expect, it } from 'vitest';
import { buildGatewaySchema } from '../src/graphql/schema.js';

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
interface MetadataStorage {
  objectTypes: TypeMetadata[];
  fields: FieldLikeMetadata[];
  authorizedFields: FieldLikeMetadata[];
  middlewares: FieldLikeMetadata[];
}

describe('object types with simple resolvers', () => {
  it('have no field that needs @Authorized or middleware (type-graphql would silently skip it)', async () => {
    await buildGatewaySchema({ enrichment: { maxQueriesPerRequest: 10 } });
    // type-graphql keeps its decorator metadata in this global (not exported from the package).
    const storage = (globalThis as unknown as { TypeGraphQLMetadataStorage: MetadataStorage })
      .TypeGraphQLMetadataStorage;
    const simple = new Set(storage.objectTypes.filter((type) => type.simpleResolvers).map((type) => type.target));
    expect([...simple].map((target) => target.name)).toEqual(
      expect.arrayContaining(['Transaction', 'TransactionConnection', 'EnrichmentResult', 'Merchant']),
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
});
