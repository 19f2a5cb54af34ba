import {
  context,
  INVALID_SPAN_CONTEXT,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
} from '@opentelemetry/api';

/**
 * OpenTelemetry tracing, off unless an OTLP endpoint is configured. With a provider: a server span
 * per HTTP request (its name says the GraphQL operation), a client span per upstream call with
 * `traceparent` sent upstream, and each subscription event executed in a span linked to the
 * webhook that produced it (receipt → publish → delivery in one trace). Without one, the helpers
 * below run their work with a span that records nothing and skip the API altogether: its no-op
 * spans, contexts and propagation still cost 1-2% of the CPU of a small request.
 */
const tracer = () => trace.getTracer('open-finance-gateway');

/** Providers registered by startTracing and not shut down (global, as OpenTelemetry's own registration is). */
let providers = 0;
const NO_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

export interface TracingSettings {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL (spans go to `/v1/traces`). */
  endpoint: string;
  serviceName: string;
}

/**
 * Registers the global tracer provider; returns how to flush and unregister it. The SDK and its
 * exporter are loaded here, not at import: a quarter of the gateway's start otherwise, for a
 * feature that is off unless configured.
 */
export async function startTracing(settings: TracingSettings): Promise<{ shutdown(): Promise<void> }> {
  const [{ OTLPTraceExporter }, { resourceFromAttributes }, { BatchSpanProcessor }, { NodeTracerProvider }] =
    await Promise.all([
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/sdk-trace-node'),
    ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${settings.endpoint.replace(/\/+$/, '')}/v1/traces` }), {
        scheduledDelayMillis: 500,
      }),
    ],
  });
  provider.register();
  providers += 1;
  return {
    async shutdown() {
      providers -= 1;
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** Runs `work` in a server span for an incoming request, continuing the caller's trace if it sent one. */
export function inServerSpan<T>(
  name: string,
  headers: Record<string, string | string[] | undefined>,
  work: (span: Span) => T,
): T {
  if (providers === 0) return work(NO_SPAN);
  const parent = propagation.extract(context.active(), headers);
  return tracer().startActiveSpan(name, { kind: SpanKind.SERVER }, parent, work);
}

/**
 * Runs an upstream call in a client span and fills `headers` with what carries the trace upstream.
 * The name is made only when there is a span to name.
 */
export async function inClientSpan<T>(
  name: () => string,
  headers: Record<string, string>,
  call: (span: Span) => Promise<T>,
): Promise<T> {
  if (providers === 0) return call(NO_SPAN);
  return tracer().startActiveSpan(name(), { kind: SpanKind.CLIENT }, async (span) => {
    propagation.inject(context.active(), headers);
    try {
      return await call(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** The current trace as a `traceparent` value, to carry it inside an event; undefined when not tracing. */
export function currentTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** Runs `work` in a span linked to the trace an event carried (the webhook that produced it). */
export function inLinkedSpan<T>(name: string, traceparent: string | undefined, work: () => Promise<T>): Promise<T> {
  if (providers === 0) return work();
  const origin: Context | undefined = traceparent ? propagation.extract(context.active(), { traceparent }) : undefined;
  const link = origin ? trace.getSpanContext(origin) : undefined;
  return tracer().startActiveSpan(
    name,
    { kind: SpanKind.CONSUMER, links: link ? [{ context: link }] : [] },
    async (span) => {
      try {
        return await work();
      } finally {
        span.end();
      }
    },
  );
}

export function activeSpan(): Span | undefined {
  return trace.getActiveSpan();
}
