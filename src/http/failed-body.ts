import type { FastifyInstance, FastifyReply, FastifyRequest, preParsingHookHandler } from 'fastify';
import type { Readable } from 'node:stream';

/**
 * A compressed body is decompressed as it arrives, from the first preParsing hook on, while the later
 * ones still wait (the admission for a work slot, the per-project rate limit for its Redis round trip).
 * A body that fails meanwhile (gzip cut short, or with bytes after its end) emits its error before the
 * parser listens, and the parser then waits on the dead stream for ever: the request was never answered,
 * and REQUEST_TIMEOUT_MS does not apply to a body received in full. Appended as the last preParsing hook
 * of the routes declared after this call (after the plugins that add their own), it hands such an error
 * to the error handler (400 for a body that does not decompress).
 */
export function answerBodiesThatFailedEarly(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const hooks = route.preParsing === undefined ? [] : [route.preParsing].flat();
    route.preParsing = [...hooks, rethrowFailedBody as preParsingHookHandler];
  });
}

async function rethrowFailedBody(_request: FastifyRequest, _reply: FastifyReply, payload: Readable): Promise<Readable> {
  if (payload.errored) throw payload.errored;
  return payload;
}
