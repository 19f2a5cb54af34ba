import {
  GraphQLError,
  Kind,
  type ASTVisitor,
  type DocumentNode,
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

/**
 * How many fields a document writes, and how many it expands to once every fragment spread is
 * inlined (per operation, summed). Each fragment's expansion is counted once and remembered, so a
 * document of thousands of spreads, or of fragments that double at each level, is counted in one
 * pass over its text. A spread of an unknown fragment, or one that cycles back into itself, counts
 * nothing here: validation refuses both afterwards.
 */
export function documentExpansion(document: DocumentNode): { written: number; expanded: number } {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const counted = new Map<string, number>();
  const visiting = new Set<string>();
  const expandSet = (set: SelectionSetNode): number => {
    let fields = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        fields += 1 + (selection.selectionSet ? expandSet(selection.selectionSet) : 0);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        fields += expandSet(selection.selectionSet);
      } else {
        fields += expandFragment(selection.name.value);
      }
    }
    return fields;
  };
  const expandFragment = (name: string): number => {
    const known = counted.get(name);
    if (known !== undefined) return known;
    const fragment = fragments.get(name);
    if (!fragment || visiting.has(name)) return 0;
    visiting.add(name);
    const fields = expandSet(fragment.selectionSet);
    visiting.delete(name);
    counted.set(name, fields);
    return fields;
  };
  let written = 0;
  let expanded = 0;
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION && definition.kind !== Kind.FRAGMENT_DEFINITION) continue;
    // A fragment's own fields are written once, however often it is spread.
    written += writtenFields(definition.selectionSet);
    if (definition.kind === Kind.OPERATION_DEFINITION) expanded += expandSet(definition.selectionSet);
  }
  return { written, expanded };
}

function writtenFields(set: SelectionSetNode): number {
  let fields = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD)
      fields += 1 + (selection.selectionSet ? writtenFields(selection.selectionSet) : 0);
    else if (selection.kind === Kind.INLINE_FRAGMENT) fields += writtenFields(selection.selectionSet);
  }
  return fields;
}
