/** One call to an upstream, as the clients describe it, and its answer. */

export interface UpstreamRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string | undefined>;
  headers?: Record<string, string>;
  json?: unknown;
  /** Overrides the upstream's default deadline for this call. */
  timeoutMs?: number;
  /**
   * Retry transport failures and 502/503/504, with jittered backoff, inside the same deadline.
   * Only for idempotent reads: revocation and refresh must never be repeated blindly.
   * @default true for GET, false otherwise
   */
  retry?: boolean;
  /** The gateway request this call serves: sent as `x-request-id` and on the call's log lines. */
  requestId?: string;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or undefined when the body was empty. */
  body: unknown;
}
