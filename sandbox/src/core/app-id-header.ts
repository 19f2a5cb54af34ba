import type { IncomingHttpHeaders } from 'node:http';

/** The two spellings of the platform's header prefix: the specification's and the live platform's (its SDK's). */
const PREFIXES = ['X-Service', 'X-Akahu'] as const;

/**
 * The app id a request carries, under either prefix: the sandbox accepts both, so a gateway set
 * up for the specification and an app using the platform's SDK (`X-Akahu-Id`) both work.
 */
export function appIdOf(headers: IncomingHttpHeaders): string | undefined {
  for (const prefix of PREFIXES) {
    const value = headers[`${prefix}-id`.toLowerCase()];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

/** What a 401 says when the app id is missing or wrong, naming both accepted headers. */
export function appIdProblem(headers: IncomingHttpHeaders, expected: string): string | undefined {
  const given = appIdOf(headers);
  if (given === undefined) return `Unauthorized: send the app token in ${PREFIXES.map((p) => `${p}-Id`).join(' or ')}`;
  if (given !== expected) return 'Unauthorized: unknown app id';
  return undefined;
}
