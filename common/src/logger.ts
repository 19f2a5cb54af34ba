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

/** Past this much unwritten, new lines are dropped (and counted) rather than held in memory. */
export const MAX_BUFFERED_LOG_BYTES = 16 * 1024 * 1024;

let stdout: DestinationStream | undefined;
let droppedLines = 0;

/**
 * Stdout, one per process (every logger shares it, so lines from two loggers never interleave in
 * one write). Lines are written by the thread pool, several to a write under load (pino's default),
 * so a slow reader (a container runtime, a log shipper) never stops the event loop. Pino's default
 * holds whatever the reader has not taken without limit: a stuck reader would grow the heap until
 * the process died. Here at most MAX_BUFFERED_LOG_BYTES are held; what is held is written when the
 * process exits (pino's exit hook), and only a process killed outright loses it.
 */
function stdoutDestination(): DestinationStream {
  if (!stdout) {
    const destination = pino.destination({ dest: 1, sync: false, maxLength: MAX_BUFFERED_LOG_BYTES });
    destination.on('drop', () => (droppedLines += 1));
    stdout = destination;
  }
  return stdout;
}

/** Log lines dropped since the process started because stdout's reader fell too far behind. */
export function droppedLogLines(): number {
  return droppedLines;
}

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      base: { service: options.service ?? 'open-finance-gateway' },
    },
    options.destination ?? stdoutDestination(),
  );
}
