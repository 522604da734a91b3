import type { IncomingHttpHeaders } from 'node:http';

/**
 * The service's view of tracing: a request span and its stage spans. Only types and a helper live
 * here, so the app imports no OpenTelemetry code; ./otel-tracing.ts implements them and is loaded
 * only when tracing is configured (./index.ts).
 */
export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

export interface TraceSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** W3C headers (`traceparent`, `tracestate`) that make this span the parent of an outbound call. */
  outboundHeaders(): Record<string, string>;
  child(name: string): TraceSpan;
  /** Ends the span with these attributes; `failed` marks it as an error. Ending twice does nothing. */
  end(attributes?: SpanAttributes, failed?: boolean): void;
}

export interface Tracing {
  /** A server span continuing the caller's `traceparent` (a new trace without one). */
  startRequest(name: string, headers: IncomingHttpHeaders, attributes: SpanAttributes): TraceSpan;
  /**
   * Exports the spans still buffered, then stops; rejects after `timeoutMs` (a dead collector must
   * not hold the process past its shutdown limit).
   */
  shutdown(timeoutMs: number): Promise<void>;
}
