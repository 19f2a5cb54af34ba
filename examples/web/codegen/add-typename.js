// A codegen document transform: `__typename` in every selection of the app's documents, before they
// are hashed into persisted-documents.json. A gateway running the manifest's text (TRUSTED_DOCUMENTS)
// answers exactly that text, and Apollo Client's cache needs `__typename` to normalise objects by id
// (it adds the field to what it sends as text, but cannot add it to a document sent by id).
import { addTypenameSelectionDocumentTransform } from '@graphql-codegen/client-preset';

export const transform = addTypenameSelectionDocumentTransform.transform;
