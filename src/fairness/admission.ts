import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import type { FairShare, SearchSlot } from './fair-share.js';

interface AdmissionOptions {
  /** How long this request may wait for a work slot, in ms. */
  maxWaitMs(request: FastifyRequest): number;
  /** Told the slot once admitted (search keeps it to mark when its work starts waiting). */
  onAdmitted?(request: FastifyRequest, slot: SearchSlot): void;
}

/**
 * The per-project admission hook (Fastify `preParsing`) shared by every route that does work for a
 * project: waits for a work slot, frees it when the reply closes, and meters the body's bytes, all before
 * the body is parsed, so that one project's burst never reaches the parser ahead of the others.
 */
export function admissionHook(fairShare: FairShare, options: AdmissionOptions) {
  return async (request: FastifyRequest, reply: FastifyReply, payload: Readable): Promise<Readable> => {
    const declared = Number(request.headers['content-length']) || 0;
    const slot = await fairShare.admit(request.projectId, declared, options.maxWaitMs(request));
    options.onAdmitted?.(request, slot);
    reply.raw.once('close', () => slot.finish());
    // A caller that hung up while it waited for a slot: the close event has passed already.
    if (request.raw.socket.destroyed) slot.finish();
    return fairShare.meteredBody(request.projectId, payload, declared);
  };
}
