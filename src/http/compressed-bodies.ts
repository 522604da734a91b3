import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/** Content-Encodings a request body may have (search and feedback); any other gets 415. */
const REQUEST_ENCODINGS = ['gzip', 'deflate', 'br', 'identity'] as const;

/**
 * Accepts the routes' bodies compressed: a 1,000-tool list is ~800 KB of JSON sent with every search. The
 * route's body limit applies to the decompressed bytes, so a compression bomb gets 413.
 */
export async function acceptCompressedBodies(app: FastifyInstance): Promise<void> {
  await app.register(compress, { global: false, requestEncodings: [...REQUEST_ENCODINGS] });
}
