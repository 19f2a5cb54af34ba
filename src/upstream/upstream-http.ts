import { setTimeout as delay } from 'node:timers/promises';
import { Pool } from 'undici';
import type { Logger } from '@open-finance-gateway/common/logger';
import { routeTemplate } from '../lib/route-template.js';
import { scrubErrorBody } from '../lib/scrub.js';
import { inClientSpan } from '../lib/tracing.js';
import { createCircuitBreakers, operationGroup, type CircuitBreakerSettings } from './circuit-breakers.js';
import { UpstreamError } from './upstream-error.js';
import type { UpstreamRequest, UpstreamResponse } from './upstream-request.js';
import { classifyTransportError, credentialsIn, parseJson, readCapped, wireRequest } from './upstream-transport.js';

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
  maxTcpConnections: number;
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
  const upstream = new PooledUpstream(options);
  return { name: options.name, send: (request) => upstream.send(request), close: () => upstream.close() };
}

class PooledUpstream {
  private readonly pool: Pool;
  private readonly pathPrefix: string;
  private readonly breakers: ReturnType<typeof createCircuitBreakers>;

  constructor(private readonly options: UpstreamHttpOptions) {
    const base = new URL(options.baseUrl);
    this.pathPrefix = base.pathname.replace(/\/+$/, '');
    this.pool = new Pool(base.origin, {
      connections: options.maxTcpConnections,
      connectTimeout: Math.min(options.timeoutMs, 5_000),
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      keepAliveTimeout: 10_000,
    });
    this.breakers = createCircuitBreakers(options.name, options.breaker, options.logger);
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  async send(request: UpstreamRequest): Promise<UpstreamResponse> {
    const group = operationGroup(request.path);
    const deadline = performance.now() + (request.timeoutMs ?? this.options.timeoutMs);
    const retry = request.retry ?? request.method === 'GET';
    for (let attempt = 0; ; attempt += 1) {
      const remaining = deadline - performance.now();
      const backoff = RETRY_BASE_MS * 2 ** attempt * (0.75 + Math.random() * 0.5);
      const canRetry = retry && attempt < MAX_RETRIES && remaining - backoff > MIN_ATTEMPT_MS;
      try {
        const response = await this.breakers.run(group, () =>
          this.sendOnce(request, Math.max(1, Math.floor(remaining))),
        );
        if (!canRetry || !RETRYABLE_STATUSES.has(response.status)) return response;
        this.logRetry(request, { status: response.status }, attempt);
      } catch (error) {
        if (!canRetry || !(error instanceof UpstreamError) || error.kind !== 'unavailable' || error.details.circuitOpen)
          throw error;
        this.logRetry(request, { kind: error.kind }, attempt);
      }
      await delay(backoff);
    }
  }

  private logRetry(request: UpstreamRequest, outcome: { status: number } | { kind: string }, attempt: number): void {
    this.options.logger.debug(
      { requestId: request.requestId, upstream: this.options.name, path: request.path, ...outcome, attempt },
      'retrying upstream read',
    );
  }

  /** One attempt, in a client span whose context travels upstream as `traceparent`. */
  private sendOnce(request: UpstreamRequest, timeoutMs: number): Promise<UpstreamResponse> {
    const traceHeaders: Record<string, string> = {};
    return inClientSpan(
      () => `${this.options.name} ${request.method} ${routeTemplate(request.path)}`,
      traceHeaders,
      async (span) => {
        const response = await this.sendOnceUntraced(request, timeoutMs, traceHeaders);
        span.setAttribute('http.response.status_code', response.status);
        return response;
      },
    );
  }

  private async sendOnceUntraced(
    request: UpstreamRequest,
    timeoutMs: number,
    traceHeaders: Record<string, string>,
  ): Promise<UpstreamResponse> {
    const { options } = this;
    const wire = wireRequest(this.pathPrefix, request, traceHeaders);
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
      const response = await this.pool.request({
        ...wire,
        signal: deadline.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const raw = await readCapped(response.body, options.maxResponseBytes, options.name);
      options.observe?.(request.path, response.statusCode, (performance.now() - started) / 1000);
      observed = true;
      this.logCall(request, response.statusCode, started);
      return this.answer(
        request,
        response.statusCode,
        response.headers,
        parseJson(raw, response.statusCode, options.name),
      );
    } catch (error) {
      const failure =
        error instanceof UpstreamError ? error : classifyTransportError(error, options.name, request, timeoutMs);
      if (!observed) options.observe?.(request.path, failure.kind, (performance.now() - started) / 1000);
      throw failure;
    } finally {
      clearTimeout(timer);
    }
  }

  private logCall(request: UpstreamRequest, status: number, started: number): void {
    this.options.logger.debug(
      {
        requestId: request.requestId,
        upstream: this.options.name,
        method: request.method,
        path: request.path,
        status,
        ms: Math.round(performance.now() - started),
      },
      'upstream call',
    );
  }

  private answer(
    request: UpstreamRequest,
    status: number,
    headers: UpstreamResponse['headers'],
    parsed: unknown,
  ): UpstreamResponse {
    const failed = status >= 400 || (parsed as { success?: unknown } | undefined)?.success === false;
    // An error body may quote the request that failed: nothing it says about our credentials
    // may travel further (to a client message or a log line).
    const body = failed ? scrubErrorBody(parsed, [...(this.options.secrets ?? []), ...credentialsIn(request)]) : parsed;
    return { status, headers, body };
  }
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
