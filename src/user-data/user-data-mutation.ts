import { FIELD, isLedgerField, LOG_KEPT, topicOfField, type Mutation } from './user-data-store.js';

/** A stamp's parts: `<epoch>|<topic>=<generation>|…`. */
export function parseStamp(stamp: string): { epoch: string; generations: Array<[string, number]> } {
  const [epoch = '', ...parts] = stamp.split('|');
  return {
    epoch,
    generations: parts.map((part) => {
      const equals = part.lastIndexOf('=');
      return [part.slice(0, equals), Number(part.slice(equals + 1))];
    }),
  };
}

/**
 * The fields a mutation deletes besides those it writes: every field of a dropped topic, the
 * fields of a bumped topic but the ledger's own, and the change log entry that falls out of the
 * kept window when one is appended. The Redis script applies the same rule (redis-user-data-scripts.ts).
 */
export function plannedDeletions(fields: readonly string[], mutation: Mutation, logHead: number): string[] {
  const dropped = new Set(mutation.drop ?? []);
  const bumped = new Set(mutation.bump ?? []);
  const deletions = fields.filter((field) => {
    const topic = topicOfField(field);
    return dropped.has(topic) || (bumped.has(topic) && !isLedgerField(field));
  });
  if (mutation.log !== undefined && logHead + 1 > LOG_KEPT) deletions.push(FIELD.log(logHead + 1 - LOG_KEPT));
  return deletions;
}
