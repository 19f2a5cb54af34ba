import {
  GraphQLNonNull,
  GraphQLString,
  Kind,
  OperationTypeNode,
  getNamedType,
  isLeafType,
  isNonNullType,
  isObjectType,
  typeFromAST,
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLFieldResolver,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
  type ValueNode,
} from 'graphql';

/** One response key of a selection set, its field nodes merged as graphql-js merges them. */
export interface FieldPlan {
  key: string;
  name: string;
  nodes: readonly FieldNode[];
  type: GraphQLOutputType;
  parent: GraphQLObjectType;
  /** For object-typed fields: what is selected on the object. */
  selection?: readonly FieldPlan[];
  /**
   * A nested field's own resolver (`Transaction.enrichment`), called as graphql-js would; absent
   * for plain properties. Only nullable fields without arguments get here, so a failure nulls the
   * field itself and never has to travel up to a parent that was already completed.
   */
  resolve?: GraphQLFieldResolver<unknown, unknown>;
}

/** A root field of the operation; its arguments are read from its node at execution. */
export interface RootFieldPlan extends FieldPlan {
  /** Undefined for `__typename`. */
  field?: GraphQLField<unknown, unknown>;
}

/** A variable of the operation: its type, and the default it takes when the request leaves it out. */
export interface VariablePlan {
  type: GraphQLInputType;
  defaultValue?: ValueNode;
}

export interface DirectPlan {
  operation: OperationDefinitionNode;
  operationName: string | undefined;
  queryType: GraphQLObjectType;
  roots: readonly RootFieldPlan[];
  /** The operation's variables, by name. */
  variables: ReadonlyMap<string, VariablePlan>;
}

const TYPENAME_TYPE = new GraphQLNonNull(GraphQLString);

/**
 * The plan for a validated document the direct path can execute, or undefined to leave it to
 * Apollo: one query operation, no directives or fragments anywhere, root fields among `rootFields`
 * (and `__typename`), each named once, with any arguments (literals, variables, defaults); below
 * them object and leaf fields without arguments that are either plain properties of their parent
 * or nullable fields with a resolver of their own. Everything else keeps graphql-js.
 */
export function planDirectExecution(
  schema: GraphQLSchema,
  document: DocumentNode,
  rootFields: ReadonlySet<string>,
): DirectPlan | undefined {
  const queryType = schema.getQueryType();
  if (!queryType || document.definitions.length !== 1) return undefined;
  const operation = document.definitions[0]!;
  if (operation.kind !== Kind.OPERATION_DEFINITION || operation.operation !== OperationTypeNode.QUERY) return undefined;
  if (operation.directives?.length) return undefined;

  const variables = new Map<string, VariablePlan>();
  for (const definition of operation.variableDefinitions ?? []) {
    if (definition.directives?.length) return undefined;
    const type = typeFromAST(schema, definition.type);
    if (!type) return undefined;
    variables.set(definition.variable.name.value, {
      type: type as GraphQLInputType,
      defaultValue: definition.defaultValue,
    });
  }

  const grouped = groupByResponseKey(operation.selectionSet.selections);
  if (!grouped) return undefined;
  const roots: RootFieldPlan[] = [];
  for (const [key, nodes] of grouped) {
    const name = nodes[0]!.name.value;
    if (name === '__typename') {
      roots.push({ key, name, nodes, type: TYPENAME_TYPE, parent: queryType });
      continue;
    }
    const field = queryType.getFields()[name];
    // Named twice under one key, its arguments are merged by validation's rules: leave it to graphql-js.
    if (!field || !rootFields.has(name) || nodes.length !== 1) return undefined;
    const selection = planSelection(nodes, field.type);
    if (selection === null) return undefined;
    roots.push({ key, name, nodes, type: field.type, parent: queryType, field, selection });
  }
  return { operation, operationName: operation.name?.value, queryType, roots, variables };
}

/** Undefined for a leaf; null when the selection is not one the direct path executes. */
function planSelection(nodes: readonly FieldNode[], type: GraphQLOutputType): FieldPlan[] | undefined | null {
  const named = getNamedType(type);
  if (isLeafType(named)) return undefined;
  // An `isTypeOf` check is graphql-js's to run; no type the direct path serves has one.
  if (!isObjectType(named) || named.isTypeOf) return null;
  const grouped = groupByResponseKey(nodes.flatMap((node) => node.selectionSet?.selections ?? []));
  if (!grouped) return null;
  const plans: FieldPlan[] = [];
  for (const [key, fieldNodes] of grouped) {
    const name = fieldNodes[0]!.name.value;
    if (name === '__typename') {
      plans.push({ key, name, nodes: fieldNodes, type: TYPENAME_TYPE, parent: named });
      continue;
    }
    const field = named.getFields()[name];
    if (!field || field.args.length > 0 || (field.resolve && isNonNullType(field.type))) return null;
    const selection = planSelection(fieldNodes, field.type);
    if (selection === null) return null;
    plans.push({ key, name, nodes: fieldNodes, type: field.type, parent: named, selection, resolve: field.resolve });
  }
  return plans;
}

function groupByResponseKey(selections: readonly SelectionNode[]): Map<string, FieldNode[]> | undefined {
  const grouped = new Map<string, FieldNode[]>();
  for (const selection of selections) {
    if (selection.kind !== Kind.FIELD || selection.directives?.length) return undefined;
    const key = selection.alias?.value ?? selection.name.value;
    const nodes = grouped.get(key);
    if (nodes) nodes.push(selection);
    else grouped.set(key, [selection]);
  }
  return grouped;
}
