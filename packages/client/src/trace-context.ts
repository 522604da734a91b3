/**
 * W3C Trace Context pass-through (https://www.w3.org/TR/trace-context/): the router's `traceparent`
 * and `tracestate` go to the service as headers, so its spans (and its model calls) join the
 * router's trace. Checked here as the service checks them: a malformed `traceparent` would be
 * ignored there anyway, so it is not sent (nor its `tracestate`).
 */
export interface TraceContextHeaders {
  traceparent?: string | undefined;
  tracestate?: string | undefined;
}

/** Headers ready to send: a valid `traceparent`, and `tracestate` when given with it. */
export type TraceHeaders = { traceparent: string; tracestate?: string };

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}(-.*)?$/;
/** The service drops a longer `tracestate` (the spec's 32 members of at most ~256 characters fit in far less in practice). */
const MAX_TRACESTATE_CHARS = 512;

export function traceHeaders(
  perSearch: TraceContextHeaders,
  fromClient: (() => TraceContextHeaders | undefined) | undefined,
): TraceHeaders | undefined {
  let source: TraceContextHeaders | undefined = perSearch;
  if (perSearch.traceparent === undefined && fromClient !== undefined) {
    try {
      source = fromClient();
    } catch {
      // A broken propagator must not cost the router its tools.
      return undefined;
    }
  }
  const traceparent = source?.traceparent;
  if (
    typeof traceparent !== 'string' ||
    !TRACEPARENT.test(traceparent) ||
    /^[0-9a-f]{2}-0{32}-|-0{16}-/.test(traceparent)
  )
    return undefined;
  const tracestate = source?.tracestate;
  return typeof tracestate === 'string' &&
    tracestate !== '' &&
    tracestate.length <= MAX_TRACESTATE_CHARS &&
    !/[\r\n]/.test(tracestate)
    ? { traceparent, tracestate }
    : { traceparent };
}
