import {
  GraphQLError,
  Kind,
  type ASTVisitor,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';

/**
 * Query depth limit. Counts field nesting through fragments (each fragment visited once per path,
 * so cycles, which validation rejects anyway, cannot loop). Introspection fields (`__schema`,
 * `__type`) are not counted: the standard introspection query is 15 levels deep, and whether it
 * may run at all is the introspection switch's decision.
 */
export function maxDepthRule(maxDepth: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(operation) {
      const fragments = new Map(
        context
          .getDocument()
          .definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
          .map((d) => [d.name.value, d]),
      );
      const depth = selectionDepth(operation.selectionSet, fragments, new Set());
      if (depth > maxDepth) {
        context.reportError(
          new GraphQLError(`Query depth ${depth} exceeds the limit of ${maxDepth}.`, {
            nodes: [operation],
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: maxDepth },
          }),
        );
      }
    },
  });
}

function selectionDepth(
  set: SelectionSetNode,
  fragments: Map<string, FragmentDefinitionNode>,
  visiting: Set<string>,
): number {
  let deepest = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value.startsWith('__')) continue;
      deepest = Math.max(
        deepest,
        1 + (selection.selectionSet ? selectionDepth(selection.selectionSet, fragments, visiting) : 0),
      );
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      deepest = Math.max(deepest, selectionDepth(selection.selectionSet, fragments, visiting));
    } else {
      const fragment = fragments.get(selection.name.value);
      if (!fragment || visiting.has(fragment.name.value)) continue;
      visiting.add(fragment.name.value);
      deepest = Math.max(deepest, selectionDepth(fragment.selectionSet, fragments, visiting));
      visiting.delete(fragment.name.value);
    }
  }
  return deepest;
}

/** Caps aliases per document: aliases multiply upstream work without multiplying query size much. */
export function maxAliasesRule(maxAliases: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    let aliases = 0;
    return {
      Field(node) {
        if (node.alias) aliases += 1;
      },
      Document: {
        leave(document) {
          if (aliases > maxAliases) {
            context.reportError(
              new GraphQLError(`The document uses ${aliases} aliases; the limit is ${maxAliases}.`, {
                nodes: [document],
                extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: maxAliases },
              }),
            );
          }
        },
      },
    };
  };
}
