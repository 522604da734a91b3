// The piscina worker of the embedded source: loads the encoder once per thread, then embeds the
// batches it is sent. The vectors go back in one transferred buffer (no copy of 512 floats per text).
// A background-lane thread lowers its own OS priority first (thread-priority.ts).
import { Piscina } from 'piscina';
import { workerData } from 'node:worker_threads';
import { LOCAL_DIMENSIONS, loadLocalEncoder, type EncoderBackend } from './local-encoder.js';
import { lowerThisThreadPriority } from './thread-priority.js';

/** What the embedded source tells each of its threads (embedded-source.ts). */
export interface EncoderThreadData {
  /** The nice value to run at (the background lane's), or undefined to run as the process does. */
  nice?: number | undefined;
}

const { nice: niceWanted } = (workerData ?? {}) as EncoderThreadData;
const niceInEffect = niceWanted === undefined ? undefined : lowerThisThreadPriority(niceWanted);
const encoder = loadLocalEncoder();

export default async function embedBatch(texts: string[]): Promise<unknown> {
  const vectors = await (await encoder).embed(texts);
  const packed = new Float32Array(vectors.length * LOCAL_DIMENSIONS);
  vectors.forEach((vector, i) => packed.set(vector, i * LOCAL_DIMENSIONS));
  return Piscina.move(packed);
}

/** What runs the model in this thread (for the startup log). */
export async function backend(): Promise<EncoderBackend> {
  return (await encoder).backend;
}

/** The thread's nice value if it set one (answered without waiting for the model). */
export function nice(): number | null {
  return niceInEffect ?? null;
}
