import {
  GraphQLError,
  getArgumentValues,
  isLeafType,
  isListType,
  isNonNullType,
  locatedError,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from 'graphql';
import type { DirectPlan, FieldPlan } from './direct-plan.js';

/** A response path as graphql-js keeps it (GraphQLResolveInfo.path). */
interface Path {
  readonly prev: Path | undefined;
  readonly key: string | number;
  readonly typename: string | undefined;
}

const addPath = (prev: Path | undefined, key: string | number, typename: string | undefined): Path => ({
  prev,
  key,
  typename,
});

function pathToArray(path: Path | undefined): Array<string | number> {
  const keys: Array<string | number> = [];
  for (let current = path; current; current = current.prev) keys.push(current.key);
  return keys.reverse();
}

const isPromiseLike = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as PromiseLike<unknown> | null)?.then === 'function';

/**
 * Executes a planned operation with graphql-js's semantics and none of its general machinery:
 * the root fields' own resolvers (the schema's, behind the access gate) with their arguments,
 * then each returned value completed along the plan: plain properties read, nested resolvers
 * called as graphql-js calls them (`Transaction.enrichment` on every row of a page), leaves
 * serialized by their type, a null in a non-null position propagated to the nearest nullable
 * parent, every error located at its path and collected in the order graphql-js would collect it.
 */
export async function executeDirectPlan(
  schema: GraphQLSchema,
  plan: DirectPlan,
  variableValues: Record<string, unknown>,
  context: unknown,
): Promise<{ data: Record<string, unknown> | null; errors: GraphQLError[] }> {
  const errors: GraphQLError[] = [];
  /** Fields still resolving: the roots, then the nested resolvers their values led to. */
  const pending: Array<PromiseLike<void>> = [];

  function fieldError(raw: unknown, field: FieldPlan, path: Path): null {
    const located = locatedError(raw, field.nodes, pathToArray(path));
    if (isNonNullType(field.type)) throw located;
    errors.push(located);
    return null;
  }

  function completeValue(type: GraphQLOutputType, result: unknown, field: FieldPlan, path: Path): unknown {
    if (result instanceof Error) throw result;
    if (isNonNullType(type)) {
      const completed = completeValue(type.ofType, result, field, path);
      if (completed === null)
        throw new Error(`Cannot return null for non-nullable field ${field.parent.name}.${field.name}.`);
      return completed;
    }
    if (result === null || result === undefined) return null;
    if (isListType(type)) {
      if (!Array.isArray(result))
        throw new GraphQLError(
          `Expected Iterable, but did not find one for field "${field.parent.name}.${field.name}".`,
        );
      const itemType = type.ofType;
      const items: unknown[] = new Array(result.length);
      for (let index = 0; index < result.length; index += 1) {
        const itemPath = addPath(path, index, undefined);
        try {
          items[index] = completeValue(itemType, result[index], field, itemPath);
        } catch (raw) {
          const located = locatedError(raw, field.nodes, pathToArray(itemPath));
          if (isNonNullType(itemType)) throw located;
          errors.push(located);
          items[index] = null;
        }
      }
      return items;
    }
    if (isLeafType(type)) {
      const serialized: unknown = type.serialize(result);
      if (serialized === undefined)
        throw new Error(
          `Expected \`${type.name}.serialize(${String(result)})\` to return non-nullable value, returned: undefined`,
        );
      return serialized;
    }
    return completeObject(field.selection!, result as Record<string, unknown>, path);
  }

  function completeObject(selection: readonly FieldPlan[], source: Record<string, unknown>, path: Path | undefined) {
    const object: Record<string, unknown> = {};
    for (const field of selection) {
      const fieldPath = addPath(path, field.key, field.parent.name);
      if (field.name === '__typename') {
        object[field.key] = field.parent.name;
        continue;
      }
      try {
        const value = field.resolve
          ? field.resolve(source, {}, context, resolveInfo(schema, plan, field, fieldPath, variableValues))
          : source[field.name];
        if (isPromiseLike(value)) {
          object[field.key] = null; // holds the key's place in the response's order
          pending.push(value.then(settleNested(object, field, fieldPath), failNested(object, field, fieldPath)));
        } else object[field.key] = completeValue(field.type, value, field, fieldPath);
      } catch (raw) {
        object[field.key] = fieldError(raw, field, fieldPath);
      }
    }
    return object;
  }

  // A nested resolver's field is nullable (direct-plan.ts): an error nulls it and stops there.
  const settleNested = (object: Record<string, unknown>, field: FieldPlan, path: Path) => (value: unknown) => {
    try {
      object[field.key] = completeValue(field.type, value, field, path);
    } catch (raw) {
      object[field.key] = fieldError(raw, field, path);
    }
  };
  const failNested = (object: Record<string, unknown>, field: FieldPlan, path: Path) => (raw: unknown) =>
    void (object[field.key] = fieldError(raw, field, path));

  const data: Record<string, unknown> = {};
  try {
    for (const root of plan.roots) {
      const path = addPath(undefined, root.key, plan.queryType.name);
      if (!root.field) {
        data[root.key] = plan.queryType.name;
        continue;
      }
      data[root.key] = null; // holds the key's place in the response's order
      const settle = (value: unknown) => {
        try {
          data[root.key] = completeValue(root.type, value, root, path);
        } catch (raw) {
          data[root.key] = fieldError(raw, root, path);
        }
      };
      try {
        const result = root.field.resolve!(
          undefined,
          getArgumentValues(root.field, root.nodes[0]!, variableValues),
          context,
          resolveInfo(schema, plan, root, path, variableValues),
        );
        if (isPromiseLike(result))
          pending.push(result.then(settle, (raw: unknown) => void (data[root.key] = fieldError(raw, root, path))));
        else settle(result);
      } catch (raw) {
        data[root.key] = fieldError(raw, root, path);
      }
    }
    // Completing a root's value may start nested resolvers, and those may start more.
    while (pending.length > 0) await Promise.all(pending.splice(0));
  } catch (error) {
    // A non-null root field failed: the whole data is null, as graphql-js answers.
    if (!(error instanceof GraphQLError)) throw error;
    await Promise.allSettled(pending);
    return { data: null, errors: [...errors, error] };
  }
  return { data, errors };
}

function resolveInfo(
  schema: GraphQLSchema,
  plan: DirectPlan,
  field: FieldPlan,
  path: Path,
  variableValues: Record<string, unknown>,
): GraphQLResolveInfo {
  return {
    fieldName: field.name,
    fieldNodes: field.nodes,
    returnType: field.type,
    parentType: field.parent,
    path,
    schema,
    fragments: {},
    rootValue: undefined,
    operation: plan.operation,
    variableValues,
  };
}
