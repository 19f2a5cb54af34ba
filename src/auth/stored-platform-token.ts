/**
 * The platform token as a stored record (a session, a bank connection) carries it, sealed by the
 * token cipher. The field was `token` until this version and is `platformToken` from it. While
 * versions mix in a rolling deploy, a record is written with both (the same ciphertext), so an
 * instance of the previous version reads it, and read from either, so a record the previous
 * version wrote works here. The version after this one writes `platformToken` alone
 * (docs/operations/several-instances.md, "How versions roll").
 */
export interface StoredPlatformToken {
  platformToken?: string;
  /** The previous version's name for the same ciphertext. */
  token?: string;
}

/** The fields to store for a sealed platform token: under both names, this version. */
export function sealedTokenFields(sealed: string): Required<StoredPlatformToken> {
  return { platformToken: sealed, token: sealed };
}

/** The sealed platform token of a stored record, whichever version wrote it. */
export function sealedTokenOf(stored: StoredPlatformToken): string | undefined {
  return stored.platformToken ?? stored.token;
}
