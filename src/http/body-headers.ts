import type { FastifyInstance } from 'fastify';

/**
 * The API speaks JSON only: other bodies get 415, not a confusing schema error. The headers that say how a
 * body is sent are read leniently where HTTP allows it.
 */
export function readBodyHeaders(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');
  // A route that takes no body (DELETE /v1/catalog/feedback) serves a request without one whatever its
  // content-type says: generated clients send `content-type: application/json` on every call, and Fastify
  // parses an empty body by it (a 400 "The request body is empty", or a 415).
  app.addHook('onRequest', async (request) => {
    const { headers } = request;
    const bodiless =
      headers['transfer-encoding'] === undefined &&
      (headers['content-length'] === undefined || headers['content-length'] === '0');
    if (bodiless && request.routeOptions.schema?.body === undefined) delete headers['content-type'];
    // Content codings are case-insensitive (RFC 9110 8.4.1): `GZIP` is gzip, not a 415. The decompressor
    // compares the header as it is.
    const encoding = headers['content-encoding'];
    if (typeof encoding === 'string') headers['content-encoding'] = encoding.trim().toLowerCase();
  });
}
