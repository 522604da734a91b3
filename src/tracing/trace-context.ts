import { randomBytes } from 'node:crypto';

/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): a caller's `traceparent` is accepted and
 * the trace carried on to the model and embeddings calls, with this service's own span id as their
 * parent; `tracestate` is passed on unchanged. A malformed header is ignored, as the spec asks.
 * Used when tracing is off; with OpenTelemetry on (src/tracing) the request's span does this.
 */
interface TraceContext {
  traceId: string;
  /** The caller's span (our parent). */
  parentSpanId: string;
  /** This request's span: the parent of our outbound calls. */
  spanId: string;
  /** Headers for outbound calls. */
  headers: Record<string, string>;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const MAX_TRACESTATE_CHARS = 512;

export function traceContextOf(traceparent: unknown, tracestate: unknown): TraceContext | undefined {
  if (typeof traceparent !== 'string') return undefined;
  const match = TRACEPARENT.exec(traceparent.trim());
  if (!match) return undefined;
  const [, version, traceId, parentSpanId, flags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string | undefined,
  ];
  // Version ff is invalid; version 00 has no trailing fields; all-zero ids are invalid.
  if (version === 'ff' || (version === '00' && rest !== undefined) || /^0+$/.test(traceId) || /^0+$/.test(parentSpanId))
    return undefined;
  const spanId = randomBytes(8).toString('hex');
  const headers: Record<string, string> = { traceparent: `00-${traceId}-${spanId}-${flags}` };
  if (typeof tracestate === 'string' && tracestate.length > 0 && tracestate.length <= MAX_TRACESTATE_CHARS)
    headers.tracestate = tracestate;
  return { traceId, parentSpanId, spanId, headers };
}
