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

/** Past this much unwritten, new lines are dropped rather than held: a stuck reader must not fill the heap. */
const MAX_BUFFERED_LOG_BYTES = 16 * 1024 * 1024;

/**
 * Stdout written in the background: a line is appended to a buffer and written by the thread
 * pool, several lines a write under load. A synchronous write stops the event loop for as long as
 * the reader of the pipe (a container runtime, a log shipper) is slow, and cost a quarter of the
 * CPU of a small request. What is still buffered is written synchronously when the process exits;
 * a process killed outright (SIGKILL) loses at most the lines of its last moments.
 */
export function bufferedStdout(): DestinationStream {
  return pino.destination({ dest: 1, sync: false, maxLength: MAX_BUFFERED_LOG_BYTES });
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
