import {
  isInputObjectType,
  isListType,
  isNonNullType,
  type GraphQLInputField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
} from 'graphql';

/** What `coerceOrdinaryInput` answers for anything it leaves to graphql-js. */
export const NOT_ORDINARY: unique symbol = Symbol('not ordinary input');

/**
 * Coerces a JSON variable value against an input type the way graphql-js does, for ordinary input
 * only: a list given as an array, input objects with only their own fields and every non-null one
 * present, leaves their type's `parseValue` accepts, no defaults or one-of types. Anything else is
 * `NOT_ORDINARY`, and the request goes through graphql-js, which reports the exact error (a single
 * value where a list is expected, which graphql-js wraps, goes there too). Cheaper than graphql-js
 * because it builds no error paths and bails out at the first surprise.
 */
export function coerceOrdinaryInput(value: unknown, type: GraphQLInputType): unknown {
  if (isNonNullType(type)) {
    if (value === null || value === undefined) return NOT_ORDINARY;
    return coerceOrdinaryInput(value, type.ofType);
  }
  if (value === null) return null;
  if (value === undefined) return NOT_ORDINARY;
  if (isListType(type)) {
    if (!Array.isArray(value)) return NOT_ORDINARY;
    const items: unknown[] = new Array(value.length);
    for (let index = 0; index < value.length; index += 1) {
      const item = coerceOrdinaryInput(value[index], type.ofType);
      if (item === NOT_ORDINARY) return NOT_ORDINARY;
      items[index] = item;
    }
    return items;
  }
  if (isInputObjectType(type)) return coerceInputObject(value, type);
  try {
    const parsed: unknown = type.parseValue(value);
    return parsed === undefined ? NOT_ORDINARY : parsed;
  } catch {
    return NOT_ORDINARY;
  }
}

const fieldLists = new WeakMap<GraphQLInputObjectType, readonly GraphQLInputField[]>();

function coerceInputObject(value: unknown, type: GraphQLInputObjectType): unknown {
  if (typeof value !== 'object' || Array.isArray(value) || type.isOneOf) return NOT_ORDINARY;
  const given = value as Record<string, unknown>;
  let fields = fieldLists.get(type);
  if (!fields) fieldLists.set(type, (fields = Object.values(type.getFields())));
  let present = 0;
  const coerced: Record<string, unknown> = {};
  for (const field of fields) {
    const fieldValue = given[field.name];
    if (fieldValue === undefined || !Object.hasOwn(given, field.name)) {
      if (field.defaultValue !== undefined || isNonNullType(field.type)) return NOT_ORDINARY;
      continue;
    }
    present += 1;
    const item = coerceOrdinaryInput(fieldValue, field.type);
    if (item === NOT_ORDINARY) return NOT_ORDINARY;
    coerced[field.name] = item;
  }
  // A key the type does not have is an error graphql-js names.
  if (Object.keys(given).length !== present) return NOT_ORDINARY;
  return coerced;
}
