// A request answered before its body was read (refused by the rate limit or the admission, 415 for its
// content type) must not leave its keep-alive connection waiting. The admission hook pipes the body into
// a metered stream that nobody reads once the request is refused, so Node does not discard the rest of
// the body itself: the next request on the connection then waited for REQUEST_TIMEOUT_MS and got 408.
//
// When the answer goes out with the body not yet received: a body declared at most DISCARD_MAX_BYTES
// (and within the route's body limit, so within the bytes the admission already charged) is read and
// discarded, so the connection serves the next request at once; any other (larger, or of unknown
// length) is not read, and the answer closes the connection.
import type { FastifyInstance } from 'fastify';

/**
 * Reading a refused body costs the service what receiving it does, and a tenant sending big refused
 * bodies fast took that from the others (docs/operations.md, "HTTP edges"); closing leaves it to the
 * kernel. A full 1,000-tool list (~0.8 MB) is still drained.
 */
const DISCARD_MAX_BYTES = 1024 * 1024;

export function discardUnreadBodies(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply) => {
    const raw = request.raw;
    // Never read from (refused before the admission piped it): Node discards it by itself, as it always has.
    if (raw.complete || raw.destroyed || raw.readableFlowing === null) return;
    const declared = Number(raw.headers['content-length']);
    const limit = Math.min(DISCARD_MAX_BYTES, request.routeOptions.bodyLimit);
    if (raw.headers['transfer-encoding'] === undefined && declared <= limit) {
      // Whatever reads it now (the metered stream, a decompressor) will never be read in turn.
      raw.unpipe();
      raw.resume();
    } else {
      reply.header('connection', 'close');
    }
  });
}
