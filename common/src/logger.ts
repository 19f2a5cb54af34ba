import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Paths that may carry credentials if someone ever logs a whole object. Redaction is the second
 * line of defence: the first is never passing tokens to the logger at all.
 */
const REDACTED_PATHS = [
  'accessToken',
  '*.accessToken',
  'access_token',
  '*.access_token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'headers.cookie',
  '*.headers.authorization',
  '*.headers.cookie',
  'client_secret',
  '*.client_secret',
  '*.code_verifier',
];

export interface LoggerOptions {
  level: string;
  /** The `service` field of every line: which program wrote it. @default 'open-finance-gateway' */
  service?: string;
  /** Where log lines go; stdout when omitted. Tests pass a capture stream. */
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      base: { service: options.service ?? 'open-finance-gateway' },
    },
    options.destination,
  );
}
