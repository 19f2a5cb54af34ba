import { setTimeout as delay } from 'node:timers/promises';
import { Pool, errors as undiciErrors } from 'undici';
import type { Logger } from '../lib/logger.js';
import { createCircuitBreakers, operationGroup, type CircuitBreakerSettings } from './circuit-breakers.js';
import { routeTemplate } from '../lib/route-template.js';
import { inClientSpan } from '../lib/tracing.js';
import { scrubErrorBody } from '../lib/scrub.js';
import { UpstreamError } from './upstream-error.js';

const MAX_RETRIES = 2;
const RETRY_BASE_MS = 100;
/** A retry is only worth starting with at least this much of the deadline left. */
const MIN_ATTEMPT_MS = 250;
const RETRYABLE_STATUSES = new Set([502, 503, 504]);

export interface UpstreamHttpOptions {
  /** Short name for logs and errors: 'core', 'enrichment'. */
  name: string;
  /** Base URL; may carry a path prefix, which is prepended to every request path. */
  baseUrl: string;
  timeoutMs: number;
  maxConnections: number;
  /** Responses larger than this are refused rather than buffered. */
  maxResponseBytes: number;
  /** Credentials the gateway holds for this upstream, scrubbed from every error body it returns. */
  secrets?: readonly string[];
  /** Circuit breaking per operation group; every attempt (retries too) goes through it. */
  breaker: CircuitBreakerSettings;
  logger: Logger;
  /** Told of every attempt: the request path, the status (or the error kind) and its duration. */
  observe?: (path: string, status: number | string, seconds: number) => void;
}

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

export interface UpstreamHttp {
  readonly name: string;
  /**
   * Sends one request. Resolves with any HTTP status (callers decide what a status means) and
   * rejects with UpstreamError only for transport failures, deadlines and unreadable bodies.
   */
  send(request: UpstreamRequest): Promise<UpstreamResponse>;
  close(): Promise<void>;
}

/**
 * One undici pool per upstream origin. undici's defaults (300 s header and body timeouts, no
 * connection cap, no size cap) suit nothing with a user waiting, so every one is set explicitly.
 */
export function createUpstreamHttp(options: UpstreamHttpOptions): UpstreamHttp {
  const base = new URL(options.baseUrl);
  const pathPrefix = base.pathname.replace(/\/+$/, '');
  const pool = new Pool(base.origin, {
    connections: options.maxConnections,
    connectTimeout: Math.min(options.timeoutMs, 5_000),
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 10_000,
  });

  const breakers = createCircuitBreakers(options.name, options.breaker, options.logger);

  async function send(request: UpstreamRequest): Promise<UpstreamResponse> {
    const group = operationGroup(request.path);
    const deadline = performance.now() + (request.timeoutMs ?? options.timeoutMs);
    const retry = request.retry ?? request.method === 'GET';
    for (let attempt = 0; ; attempt += 1) {
      const remaining = deadline - performance.now();
      const backoff = RETRY_BASE_MS * 2 ** attempt * (0.75 + Math.random() * 0.5);
      const canRetry = retry && attempt < MAX_RETRIES && remaining - backoff > MIN_ATTEMPT_MS;
      try {
        const response = await breakers.run(group, () => sendOnce(request, Math.max(1, Math.floor(remaining))));
        if (!canRetry || !RETRYABLE_STATUSES.has(response.status)) return response;
        options.logger.debug(
          {
            requestId: request.requestId,
            upstream: options.name,
            path: request.path,
            status: response.status,
            attempt,
          },
          'retrying upstream read',
        );
      } catch (error) {
        if (!canRetry || !(error instanceof UpstreamError) || error.kind !== 'unavailable' || error.details.circuitOpen)
          throw error;
        options.logger.debug(
          { requestId: request.requestId, upstream: options.name, path: request.path, kind: error.kind, attempt },
          'retrying upstream read',
        );
      }
      await delay(backoff);
    }
  }

  /** One attempt, in a client span whose context travels upstream as `traceparent`. */
  function sendOnce(request: UpstreamRequest, timeoutMs: number): Promise<UpstreamResponse> {
    const traceHeaders: Record<string, string> = {};
    return inClientSpan(
      () => `${options.name} ${request.method} ${routeTemplate(request.path)}`,
      traceHeaders,
      async (span) => {
        const response = await sendOnceUntraced(request, timeoutMs, traceHeaders);
        span.setAttribute('http.response.status_code', response.status);
        return response;
      },
    );
  }

  async function sendOnceUntraced(
    request: UpstreamRequest,
    timeoutMs: number,
    traceHeaders: Record<string, string>,
  ): Promise<UpstreamResponse> {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(request.query ?? {})) if (value !== undefined) search.set(key, value);
    const path = `${pathPrefix}${request.path}${search.size > 0 ? `?${search}` : ''}`;
    const headers: Record<string, string> = { accept: 'application/json', ...request.headers, ...traceHeaders };
    // The platform's logs and the gateway's can be matched by the request that caused the call.
    if (request.requestId !== undefined) headers['x-request-id'] = request.requestId;
    let body: string | undefined;
    if (request.json !== undefined) {
      body = JSON.stringify(request.json);
      headers['content-type'] = 'application/json';
    }
    const started = performance.now();
    let observed = false;
    // One deadline for the whole exchange (connect, headers, body), cleared when the call is done.
    // Not AbortSignal.timeout: its timer cannot be cleared and fires after every call, long after
    // the answer, building a DOMException with a stack each time (2-4% of the CPU of `enrich`).
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      timeoutMs,
    ).unref();
    try {
      const response = await pool.request({
        method: request.method,
        path,
        headers,
        body,
        signal: deadline.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const raw = await readCapped(response.body, options.maxResponseBytes, options.name);
      options.observe?.(request.path, response.statusCode, (performance.now() - started) / 1000);
      observed = true;
      options.logger.debug(
        {
          requestId: request.requestId,
          upstream: options.name,
          method: request.method,
          path: request.path,
          status: response.statusCode,
          ms: Math.round(performance.now() - started),
        },
        'upstream call',
      );
      const parsed = parseJson(raw, response.statusCode, options.name);
      const failed = response.statusCode >= 400 || (parsed as { success?: unknown } | undefined)?.success === false;
      // An error body may quote the request that failed: nothing it says about our credentials
      // may travel further (to a client message or a log line).
      return {
        status: response.statusCode,
        headers: response.headers,
        body: failed ? scrubErrorBody(parsed, [...(options.secrets ?? []), ...credentialsIn(request)]) : parsed,
      };
    } catch (error) {
      const failure =
        error instanceof UpstreamError ? error : classifyTransportError(error, options.name, request, timeoutMs);
      if (!observed) options.observe?.(request.path, failure.kind, (performance.now() - started) / 1000);
      throw failure;
    } finally {
      clearTimeout(timer);
    }
  }

  return { name: options.name, send, close: () => pool.close() };
}

/** The credentials a request carried: its authorization and app id headers, secrets in its body. */
function credentialsIn(request: UpstreamRequest): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    if (name.toLowerCase() === 'authorization') {
      const credential = value.replace(/^\S+\s+/, '');
      values.push(credential);
      // Basic carries id:secret in base64; either half may be echoed on its own.
      if (/^basic /i.test(value)) values.push(...Buffer.from(credential, 'base64').toString('utf8').split(':'));
    } else if (name.toLowerCase().endsWith('-id')) values.push(value);
  }
  const json = request.json as Record<string, unknown> | undefined;
  for (const key of ['client_secret', 'client_id', 'code']) if (typeof json?.[key] === 'string') values.push(json[key]);
  return values;
}

async function readCapped(stream: AsyncIterable<Buffer>, limit: number, upstream: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > limit) {
      throw new UpstreamError(upstream, 'bad_response', `${upstream} response exceeded ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

function parseJson(raw: Buffer, status: number, upstream: string): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    // An error page in HTML is still an error status; a 2xx that is not JSON breaks the contract.
    if (status >= 200 && status < 300)
      throw new UpstreamError(upstream, 'bad_response', `${upstream} returned a body that is not JSON`);
    return undefined;
  }
}

function classifyTransportError(
  error: unknown,
  upstream: string,
  request: UpstreamRequest,
  timeoutMs: number,
): UpstreamError {
  const timedOut =
    (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) ||
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError ||
    error instanceof undiciErrors.ConnectTimeoutError;
  const what = `${request.method} ${request.path}`;
  if (timedOut) return new UpstreamError(upstream, 'timeout', `${upstream} ${what} took longer than ${timeoutMs} ms`);
  const reason = error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.message) : String(error);
  return new UpstreamError(upstream, 'unavailable', `${upstream} ${what} failed: ${reason}`);
}

/** Reads the platform's `{ success: false, message }` (or OAuth `error`) from an error body. */
export function platformErrorDetails(body: unknown): { platformMessage?: string; oauthError?: string } {
  if (typeof body !== 'object' || body === null) return {};
  const record = body as Record<string, unknown>;
  return {
    platformMessage: typeof record.message === 'string' ? record.message : undefined,
    oauthError: typeof record.error === 'string' ? record.error.slice(0, 100) : undefined,
  };
}

/** Builds the UpstreamError for a non-2xx response. */
export function httpStatusError(upstream: string, what: string, response: UpstreamResponse): UpstreamError {
  const retryAfter = Number(response.headers['retry-after']);
  return new UpstreamError(upstream, 'http', `${upstream} ${what} answered ${response.status}`, {
    status: response.status,
    ...platformErrorDetails(response.body),
    retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
  });
}
