import type { FastifyReply } from 'fastify';

/** A signal that aborts when the client closes the connection before its answer was sent. */
export function abortedWhenClientLeaves(reply: FastifyReply): AbortSignal {
  const cancel = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) cancel.abort();
  });
  return cancel.signal;
}
