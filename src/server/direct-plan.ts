import {
  GraphQLNonNull,
  GraphQLString,
  Kind,
  OperationTypeNode,
  getNamedType,
  isLeafType,
  isObjectType,
  typeFromAST,
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
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
}

/** A root field of the operation, with its arguments taken from variables. */
export interface RootFieldPlan extends FieldPlan {
  /** Undefined for `__typename`. */
  field?: GraphQLField<unknown, unknown>;
  /** Argument name → the variable it is given. */
  argumentVariables: ReadonlyMap<string, string>;
}

export interface DirectPlan {
  operation: OperationDefinitionNode;
  operationName: string | undefined;
  queryType: GraphQLObjectType;
  roots: readonly RootFieldPlan[];
  /** The operation's variables and their types (none has a default). */
  variables: ReadonlyMap<string, GraphQLInputType>;
}

const TYPENAME_TYPE = new GraphQLNonNull(GraphQLString);

/**
 * The plan for a validated document the direct path can execute, or undefined to leave it to
 * Apollo: one query operation, no directives or fragments anywhere, root fields among `rootFields`
 * (and `__typename`) whose arguments are all variables without defaults, and below them only
 * object and leaf fields without resolvers of their own or arguments (plain properties of what
 * the root resolver returned). Everything else, which is rare for these fields, keeps graphql-js.
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

  const variables = new Map<string, GraphQLInputType>();
  for (const definition of operation.variableDefinitions ?? []) {
    if (definition.defaultValue || definition.directives?.length) return undefined;
    const type = typeFromAST(schema, definition.type);
    if (!type) return undefined;
    variables.set(definition.variable.name.value, type as GraphQLInputType);
  }

  const grouped = groupByResponseKey(operation.selectionSet.selections);
  if (!grouped) return undefined;
  const roots: RootFieldPlan[] = [];
  for (const [key, nodes] of grouped) {
    const name = nodes[0]!.name.value;
    if (name === '__typename') {
      roots.push({ key, name, nodes, type: TYPENAME_TYPE, parent: queryType, argumentVariables: new Map() });
      continue;
    }
    const field = queryType.getFields()[name];
    if (!field || !rootFields.has(name) || nodes.length !== 1) return undefined;
    const argumentVariables = new Map<string, string>();
    for (const argument of nodes[0]!.arguments ?? []) {
      if (argument.value.kind !== Kind.VARIABLE) return undefined;
      argumentVariables.set(argument.name.value, argument.value.name.value);
    }
    // An argument left out would take its default, which graphql-js applies: leave those to it.
    if (field.args.some((arg) => !argumentVariables.has(arg.name))) return undefined;
    const selection = planSelection(nodes, field.type);
    if (selection === null) return undefined;
    roots.push({ key, name, nodes, type: field.type, parent: queryType, field, argumentVariables, selection });
  }
  return { operation, operationName: operation.name?.value, queryType, roots, variables };
}

/** Undefined for a leaf; null when the selection is not one the direct path executes. */
function planSelection(nodes: readonly FieldNode[], type: GraphQLOutputType): FieldPlan[] | undefined | null {
  const named = getNamedType(type);
  if (isLeafType(named)) return undefined;
  if (!isObjectType(named)) return null;
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
    if (!field || field.resolve || field.args.length > 0) return null;
    const selection = planSelection(fieldNodes, field.type);
    if (selection === null) return null;
    plans.push({ key, name, nodes: fieldNodes, type: field.type, parent: named, selection });
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
