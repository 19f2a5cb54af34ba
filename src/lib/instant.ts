/**
 * An ISO 8601 timestamp from the platform as a Date, or undefined when absent or unparseable.
 * Platform typings have drifted before: a bad timestamp must not become a GraphQL serialisation
 * error that masks the rest of the object.
 */
export function parseInstant(value: unknown): Date | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
