// Bounds on what the model's endpoint may send us: a model stuck in the JSON-mode whitespace loop,
// or an endpoint that sends megabytes, costs a bounded amount of memory and CPU; real answers are far
// below these bounds (sizes and the failures that set them: docs/performance.md#bounded-model-answers).

/** Most characters of answer text read; past it the call is stopped and the search says `answer_too_long`. */
export const MAX_ANSWER_CHARS = 64 * 1024;

/**
 * Most bytes of the whole response body, SSE envelopes included. Each event costs CPU to decode
 * whatever it carries, so this bounds a call's work, at several times a long real answer.
 */
const MAX_STREAM_BYTES = 1024 * 1024;

/**
 * Most bytes of one server-sent event. The SDK collects an event by copying its buffer for every
 * network chunk and parses it whole, so one huge event would cost quadratic time; a real event
 * (one delta) is a few hundred bytes.
 */
const MAX_EVENT_BYTES = 256 * 1024;

/** The limits the endpoint's response body is read within (src/endpoint/bounded-fetch.ts). */
export const ANSWER_BODY_LIMITS = { maxBytes: MAX_STREAM_BYTES, maxEventBytes: MAX_EVENT_BYTES };
