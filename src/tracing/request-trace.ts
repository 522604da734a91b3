import type { IncomingHttpHeaders } from 'node:http';
import { traceContextOf } from './trace-context.js';
import type { SpanAttributes, TraceSpan } from './spans.js';

/**
 * A request's one trace carrier, handed through the stages: with OpenTelemetry on it opens a child
 * span per stage, whose W3C headers make that span the parent of the stage's outbound calls (model,
 * embeddings); with tracing off it only propagates the caller's `traceparent` (trace-context.ts), with
 * this service's span id as the calls' parent. Stages never ask which of the two it is.
 */
export interface RequestTrace {
  /** The trace and this service's span id, for the audit line; absent when the request carries no trace. */
  readonly ids: { traceId: string; spanId: string } | undefined;
  /**
   * Runs a stage: `run` gets the headers for the stage's outbound calls (none without a trace); with
   * tracing on the stage's span ends with `describe(result)` (counts and outcomes only: no ids, query or tool text).
   */
  stage<T>(
    name: string,
    run: (outboundHeaders: Record<string, string> | undefined) => Promise<T>,
    describe: (result: T) => SpanAttributes,
  ): Promise<T>;
}

/** The request's trace: its server span when tracing is on, else the caller's trace context headers (if any). */
export function requestTrace(span: TraceSpan | undefined, headers: IncomingHttpHeaders): RequestTrace {
  if (span) return spanTrace(span);
  const context = traceContextOf(headers.traceparent, headers.tracestate);
  return {
    ids: context ? { traceId: context.traceId, spanId: context.spanId } : undefined,
    stage: (_name, run) => run(context?.headers),
  };
}

/** No trace at all (tools and tests that run stages without a request). */
export const NO_TRACE: RequestTrace = { ids: undefined, stage: (_name, run) => run(undefined) };

function spanTrace(span: TraceSpan): RequestTrace {
  return {
    ids: { traceId: span.traceId, spanId: span.spanId },
    stage: async (name, run, describe) => {
      const child = span.child(name);
      try {
        const result = await run(child.outboundHeaders());
        child.end(describe(result));
        return result;
      } catch (error) {
        child.end({}, true);
        throw error;
      }
    },
  };
}
