/**
 * The most of an answer's body the client reads. The service's answer is at most `maxResults` (≤ 100)
 * of the tools the router sent, as it sent them, plus an explanation each and up to 20 skipped tools:
 * for real MCP tools well under 1 MB. 16 MiB leaves room for routers with very long descriptions, and
 * bounds what a broken proxy or a hostile server can make the client buffer within its budget: Node's
 * fetch reads over 1 GB within the default 5 s (docs/performance.md#the-clients-response-body-bound).
 */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/**
 * The most of an error body the client reads: the service's problem details are well under 1 KB. A
 * longer one is not used (the status still is), so that an error, which reaches the router's logs
 * through `onFallback` on every failing search, stays small.
 */
export const MAX_PROBLEM_BYTES = 64 * 1024;

/**
 * The body as text, or undefined when it is larger than `maxBytes` (then the rest is not read: the
 * stream is cancelled). A declared Content-Length over the limit is refused before reading.
 */
export async function readBody(response: Response, maxBytes: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length'));
  const { body } = response;
  if (declared > maxBytes) {
    await body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (body === null) return '';
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    text += decoder.decode(value, { stream: true });
  }
}
