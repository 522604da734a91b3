import type { SearchRequest } from '@catalog-search/core';
import { requestJson } from './request-json.js';

/**
 * A large request body sent as a stream that is serialised (and gzipped) only when the runtime's
 * fetch starts sending it, i.e. once the connection is up. With the cloud down (connection
 * refused, DNS failure) the 1–2 MB of JSON for a few thousand tools is then never built nor
 * compressed, which is most of the client's own cost on a first fallback.
 */
export function streamedBody(request: SearchRequest, gzip: boolean): ReadableStream<Uint8Array> {
  let source: ReadableStreamDefaultReader<Uint8Array> | undefined;
  // highWaterMark 0: the stream does not pull (serialise) ahead of the first read.
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        source ??= serialise(request, gzip).getReader();
        const { done, value } = await source.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => source?.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

function serialise(request: SearchRequest, gzip: boolean): ReadableStream<Uint8Array> {
  const json = new Blob([requestJson(request)]).stream();
  return gzip ? json.pipeThrough(new CompressionStream('gzip')) : json;
}

/**
 * Whether the request's JSON is at least `length` characters, from a lower bound that counts only
 * its strings and the smallest tool object (exact JSON is never shorter). Stops as soon as
 * the bound is reached: a few dozen tools for a 32 KiB threshold.
 */
export function jsonAtLeast(request: SearchRequest, length: number): boolean {
  let total = 0;
  for (const text of request.query) total += text.length;
  const groups = 'servers' in request ? request.servers.map((server) => server.tools) : [request.tools];
  for (const tools of groups) {
    for (const tool of tools as unknown[]) {
      total +=
        MIN_TOOL_JSON + stringLength(tool, 'toolKey') + stringLength(tool, 'toolName') + stringLength(tool, 'name');
      total += stringLength(tool, 'serverName') + stringLength(tool, 'description') + stringLength(tool, 'title');
      if (total >= length) return true;
    }
  }
  return false;
}

/** Length of a string field of a tool the router built (any shape: the tools are read leniently). */
function stringLength(tool: unknown, field: string): number {
  const value = typeof tool === 'object' && tool !== null ? (tool as Record<string, unknown>)[field] : undefined;
  return typeof value === 'string' ? value.length : 0;
}

const MIN_TOOL_JSON = '{"name":""}'.length;

let streamsSupported: boolean | undefined;

/** Whether this runtime's fetch can send a ReadableStream body (checked once). */
export function runtimeStreamsBodies(): boolean {
  streamsSupported ??= supportsStreamedBodies(globalThis.Request);
  return streamsSupported;
}

/**
 * The standard feature test: a Request that understands streamed bodies reads `duplex` and does
 * not turn the stream into text (which would add `Content-Type: text/plain`). Node 20 and current
 * Chromium pass; Safari and Firefox do not. Chromium still refuses them over HTTP/1.1, which the
 * test cannot see: cloud-call.ts switches a client to buffered bodies when that happens.
 */
export function supportsStreamedBodies(RequestImpl: typeof Request | undefined): boolean {
  if (typeof RequestImpl !== 'function' || typeof ReadableStream !== 'function') return false;
  try {
    let duplexRead = false;
    const init = {
      method: 'POST',
      body: new ReadableStream(),
      get duplex() {
        duplexRead = true;
        return 'half';
      },
    };
    const hasContentType = new RequestImpl('http://localhost/', init).headers.has('Content-Type');
    return duplexRead && !hasContentType;
  } catch {
    return false;
  }
}
