// The semantic stage in `npm run eval`: `semantic` ranks by the encoder's similarity alone, `fused` is
// the service's hybrid ranking (src/semantic/fuse-hybrid.ts) over our lexical ranking. Vectors come
// from the embedded encoder by default, or from the endpoint in EMBEDDINGS_BASE_URL / EMBEDDINGS_MODEL
// with `--embeddings`. Embedding whole catalogs is CPU-heavy, so tool and query vectors are kept on
// disk under eval/.cache/ (gitignored), keyed by model and a hash of the text, for reruns.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import {
  createRankCache,
  rankTools,
  type RankCache,
  type RankedTool,
  type ToolInfo,
} from '../packages/core/src/index.js';
import { dot } from '../src/semantic/vector-math.js';
import { createEndpointSource } from '../src/semantic/endpoint-source.js';
import { DEFAULT_FUSION, fuseHybrid, type FusionOptions } from '../src/semantic/fuse-hybrid.js';
import { LOCAL_MODEL, loadLocalEncoder } from '../src/semantic/local-encoder.js';
import { queryText, toolText } from '../src/semantic/tool-text.js';
import type { Dataset } from './datasets.js';
import type { RankerOutput, RankerVariant } from './rankers.js';

const CACHE_DIR = fileURLToPath(new URL('./.cache/', import.meta.url));

interface TextEmbedder {
  model: string;
  embed(texts: string[]): Promise<Float32Array[]>;
}

/** Vectors by model and text hash, read from and written to eval/.cache/vectors-<model>.json. */
export class DiskVectors {
  readonly #file: string;
  readonly #vectors = new Map<string, Float32Array>();
  #dirty = false;

  constructor(
    private readonly embedder: TextEmbedder,
    private readonly dir = CACHE_DIR,
  ) {
    this.#file = `${dir}vectors-${embedder.model.replace(/[^\w.-]+/g, '_')}.json`;
    if (existsSync(this.#file)) {
      const stored = JSON.parse(readFileSync(this.#file, 'utf8')) as Record<string, string>;
      for (const [key, base64] of Object.entries(stored)) {
        const bytes = Buffer.from(base64, 'base64');
        this.#vectors.set(
          key,
          new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)),
        );
      }
    }
  }

  async get(texts: string[]): Promise<Float32Array[]> {
    const keys = texts.map((text) => createHash('sha256').update(text).digest('base64url'));
    const missing = [...new Set(keys.filter((key) => !this.#vectors.has(key)))];
    const textOf = new Map(keys.map((key, i) => [key, texts[i]!]));
    for (let at = 0; at < missing.length; at += 64) {
      const batch = missing.slice(at, at + 64);
      const vectors = await this.embedder.embed(batch.map((key) => textOf.get(key)!));
      batch.forEach((key, i) => this.#vectors.set(key, vectors[i]!.slice()));
      this.#dirty = true;
      if (missing.length > 256)
        process.stderr.write(`\r  embedding ${Math.min(at + 64, missing.length)}/${missing.length} texts`);
    }
    if (missing.length > 256) process.stderr.write('\n');
    return keys.map((key) => this.#vectors.get(key)!);
  }

  save(): void {
    if (!this.#dirty) return;
    mkdirSync(this.dir, { recursive: true });
    const stored: Record<string, string> = {};
    for (const [key, vector] of this.#vectors)
      stored[key] = Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');
    writeFileSync(this.#file, JSON.stringify(stored));
    this.#dirty = false;
  }
}

export async function evalEmbedder(
  useEndpoint: boolean,
  env: Readonly<Record<string, string | undefined>>,
): Promise<TextEmbedder> {
  if (!useEndpoint) {
    const encoder = await loadLocalEncoder();
    return { model: LOCAL_MODEL, embed: (texts) => encoder.embed(texts) };
  }
  const baseURL = env.EMBEDDINGS_BASE_URL?.trim();
  const model = env.EMBEDDINGS_MODEL?.trim();
  if (!baseURL || !model)
    throw new Error(
      'npm run eval -- --embeddings needs EMBEDDINGS_BASE_URL and EMBEDDINGS_MODEL (and EMBEDDINGS_API_KEY if the endpoint wants one)',
    );
  const apiKey = env.EMBEDDINGS_API_KEY?.trim();
  const source = createEndpointSource({ baseURL, model, timeoutMs: 120_000, ...(apiKey ? { apiKey } : {}) });
  return { model: `endpoint-${model}`, embed: (texts) => source.embed(texts) };
}

/** Per dataset: the tools' vectors once, then per query its similarity to every tool. */
export class SemanticIndex {
  tools: Float32Array[] = [];
  #dataset = '';
  constructor(readonly vectors: DiskVectors) {}

  async prepare(dataset: Dataset): Promise<void> {
    if (this.#dataset === dataset.name) return;
    this.vectors.save();
    this.tools = await this.vectors.get(dataset.tools.map(toolText));
    this.vectors.save();
    this.#dataset = dataset.name;
  }

  async similarity(query: string[]): Promise<Float64Array> {
    // Exactly the text the service embeds for a sub-query (a vector is keyed by the text it was made from).
    const queries = await this.vectors.get(query.map(queryText));
    const best = new Float64Array(this.tools.length).fill(-Infinity);
    for (const q of queries) this.tools.forEach((tool, i) => (best[i] = Math.max(best[i]!, dot(q, tool))));
    return best;
  }
}

/**
 * Similarity only: every tool by its best similarity to a sub-query. Its `gold z` column is how far the
 * request's gold tools stand out from its similarity to the whole list, in standard deviations (the mean
 * over the gold tools): the scale of the `--oracle` ceiling, so an encoder's figure here says how much of
 * that ceiling it reaches (docs/ranking.md).
 */
export function semanticRanker(index: SemanticIndex): RankerVariant {
  return {
    name: 'semantic',
    prepare: (dataset) => index.prepare(dataset),
    async rank(query, tools): Promise<RankerOutput> {
      const similarity = await index.similarity(query.query);
      const order = tools.map((_, i) => i).sort((a, b) => similarity[b]! - similarity[a]! || a - b);
      return {
        ranked: order.map((i) => tools[i]!.toolKey),
        extras: { 'gold z': goldZ(similarity, tools, query.relevant) },
      };
    },
  };
}

/** Mean z of the gold tools' similarities over the list's (0 when no gold tool is in the list). */
function goldZ(similarity: Float64Array, tools: readonly ToolInfo[], relevant: readonly string[]): number {
  const { mean, spread } = spreadOf(similarity);
  const gold = new Set(relevant);
  let sum = 0;
  let count = 0;
  tools.forEach((tool, i) => {
    if (!gold.has(tool.toolKey)) return;
    sum += (similarity[i]! - mean) / spread;
    count += 1;
  });
  return count === 0 ? 0 : sum / count;
}

function spreadOf(similarity: Float64Array): { mean: number; spread: number } {
  let sum = 0;
  let squares = 0;
  for (const s of similarity) {
    sum += s;
    squares += s * s;
  }
  const mean = sum / similarity.length;
  return { mean, spread: Math.sqrt(Math.max(squares / similarity.length - mean * mean, 1e-12)) };
}

/**
 * The gold tools' similarities raised by `z` standard deviations of the request's similarities to the
 * list: what a stronger encoder would give (the ceiling sweep of `--oracle`).
 */
function raiseGold(
  similarity: Float64Array,
  tools: readonly ToolInfo[],
  relevant: readonly string[],
  z: number,
): Float64Array {
  const { spread } = spreadOf(similarity);
  const gold = new Set(relevant);
  tools.forEach((tool, i) => {
    if (gold.has(tool.toolKey)) similarity[i]! += z * spread;
  });
  return similarity;
}

/**
 * The service's hybrid ranking; `ranked` also feeds the prompt columns (fused candidates). With
 * `oracle`, the gold tools' similarities are raised by that many standard deviations (a ceiling, not a
 * ranker: it reads the labels).
 */
export function fusedRanker(
  index: SemanticIndex,
  options: FusionOptions = DEFAULT_FUSION,
  name = 'fused',
  oracle?: number,
): RankerVariant & {
  rankedTools(
    query: string[],
    tools: ToolInfo[],
    relevant?: readonly string[],
    leaveOut?: ReadonlySet<string>,
  ): Promise<RankedTool[]>;
} {
  let cache: RankCache = createRankCache();
  const rankedTools = async (
    query: string[],
    tools: ToolInfo[],
    relevant: readonly string[] = [],
    leaveOut?: ReadonlySet<string>,
  ) => {
    let similarity = await index.similarity(query);
    if (leaveOut !== undefined) {
      // The dataset's vectors are by its tool index: keep the similarity of each tool kept.
      const kept = tools.flatMap((tool, i) => (leaveOut.has(tool.toolKey) ? [] : [i]));
      similarity = Float64Array.from(kept, (i) => similarity[i]!);
      tools = kept.map((i) => tools[i]!);
    }
    const lexical = rankTools({ query, tools }, { cache });
    return fuseHybrid(
      lexical,
      tools,
      oracle === undefined ? similarity : raiseGold(similarity, tools, relevant, oracle),
      options,
    );
  };
  return {
    name,
    prepare: async (dataset) => {
      cache = createRankCache();
      await index.prepare(dataset);
    },
    rankedTools,
    async rank(query, tools): Promise<RankerOutput> {
      return { ranked: (await rankedTools(query.query, tools, query.relevant)).map((ranked) => ranked.tool.toolKey) };
    },
  };
}

export async function semanticRankers(useEndpoint: boolean, env: Readonly<Record<string, string | undefined>>) {
  const index = new SemanticIndex(new DiskVectors(await evalEmbedder(useEndpoint, env)));
  return { index, semantic: semanticRanker(index), fused: fusedRanker(index) };
}
