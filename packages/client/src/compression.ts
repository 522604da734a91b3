/**
 * Request-body compression. A router's whole tool list is sent on every search: real MCP lists run
 * ~800 KB of JSON per 1,000 tools and gzip about 7x, which matters on a laptop's uplink inside a
 * 5 s budget. `CompressionStream` is native in Node 18+, browsers and Electron, and compresses off
 * the JavaScript thread in Node. Small bodies are sent as they are: gzip would not pay for itself.
 */
export type Compression = 'gzip' | 'none';

/** Bodies shorter than this (in UTF-16 units, about bytes for JSON) are not compressed. */
export const COMPRESSION_THRESHOLD = 32 * 1024;

interface EncodedBody {
  body: string | Blob;
  /** `Content-Encoding` to send, when compressed. */
  encoding?: 'gzip';
}

/** Whether `compression` asks for gzip and the runtime can do it. */
export const canGzip = (compression: Compression): boolean =>
  compression === 'gzip' && typeof CompressionStream === 'function';

export async function encodeBody(json: string, compression: Compression): Promise<EncodedBody> {
  if (!canGzip(compression) || json.length < COMPRESSION_THRESHOLD) {
    return { body: json };
  }
  const stream = new Blob([json]).stream().pipeThrough(new CompressionStream('gzip'));
  // A Blob, not an ArrayBuffer: Node's fetch detaches an ArrayBuffer body on sending and then
  // cannot send it again to follow a 307/308 redirect.
  return { body: await new Response(stream).blob(), encoding: 'gzip' };
}
