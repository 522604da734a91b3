// The piscina worker of the embedded source: loads the encoder once per thread, then embeds the
// batches it is sent. The vectors go back in one transferred buffer (no copy of 512 floats per text).
import { Piscina } from 'piscina';
import { LOCAL_DIMENSIONS, loadLocalEncoder, type EncoderBackend } from './local-encoder.js';

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
