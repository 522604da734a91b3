import {
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
} from '@opentelemetry/api';
import { boundedWait } from '@catalog-search/core';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { TracingConfig } from '../config/index.js';
import type { Tracing, TraceSpan } from './spans.js';

/**
 * Tracing with the OpenTelemetry SDK: spans batched and sent as OTLP/HTTP JSON to the configured
 * endpoint. Parents are passed explicitly (no context manager, so no async hooks on every request).
 * The default sampler follows the caller's sampled flag and samples every new trace.
 *
 * Memory stays bounded when the collector is slow or gone: the batch processor holds at most 2,048
 * spans (OTEL_BSP_MAX_QUEUE_SIZE) and drops the rest, and the exporter keeps at most 30 exports in
 * flight, each given up after 10 s (OTEL_EXPORTER_OTLP_TIMEOUT).
 */
export function startOtelTracing(config: TracingConfig): Tracing {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: config.endpoint }))],
  });
  const tracer = provider.getTracer('catalog-search');
  const propagator = new W3CTraceContextPropagator();

  const wrap = (span: Span): TraceSpan => {
    const context = trace.setSpan(ROOT_CONTEXT, span);
    const { traceId, spanId } = span.spanContext();
    let ended = false;
    return {
      traceId,
      spanId,
      outboundHeaders() {
        const headers: Record<string, string> = {};
        propagator.inject(context, headers, defaultTextMapSetter);
        return headers;
      },
      child: (name) => wrap(tracer.startSpan(name, { kind: SpanKind.INTERNAL }, context)),
      end(attributes, failed) {
        if (ended) return;
        ended = true;
        if (attributes) span.setAttributes(attributes);
        if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      },
    };
  };

  return {
    startRequest(name, headers, attributes) {
      const parent = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
      return wrap(tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent));
    },
    async shutdown(timeoutMs) {
      const done = await boundedWait(
        provider.shutdown().then(() => true),
        { ms: timeoutMs },
      );
      if (done === undefined) throw new Error(`the last spans were not exported within ${timeoutMs} ms`);
    },
  };
}
