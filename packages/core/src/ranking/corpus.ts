import type { ToolInfo } from '../schemas.js';
import { FIELD_COUNT } from './fields.js';
import { ToolAnalysisCache } from './rank-cache.js';
import { analyzeTool, toolContentKey, type ToolAnalysis } from './tool-analysis.js';
import type { RankCache } from './types.js';

/** The request's tool list, analysed: what BM25F needs to score any query against it. */
export interface Corpus {
  readonly analyses: readonly ToolAnalysis[];
  /** Mean token count per field over the list (0 for a field no tool has). */
  readonly avgLengths: readonly number[];
}

/** Analyses every tool (through the cache when one is given) and the list's field statistics. */
export function buildCorpus(tools: readonly ToolInfo[], cache?: RankCache, maxDescriptionChars?: number): Corpus {
  const store = cache instanceof ToolAnalysisCache ? (cache as ToolAnalysisCache<ToolAnalysis>) : undefined;
  const analyses = new Array<ToolAnalysis>(tools.length);
  const sums = new Array<number>(FIELD_COUNT).fill(0);
  for (let i = 0; i < tools.length; i += 1) {
    const tool = tools[i]!;
    let analysis: ToolAnalysis | undefined;
    if (store) {
      const key = toolContentKey(tool, maxDescriptionChars);
      analysis = store.get(key);
      if (analysis === undefined) {
        analysis = analyzeTool(tool, maxDescriptionChars);
        store.set(key, analysis);
      }
    } else {
      analysis = analyzeTool(tool, maxDescriptionChars);
    }
    analyses[i] = analysis;
    for (let f = 0; f < FIELD_COUNT; f += 1) sums[f]! += analysis.lengths[f]!;
  }
  const count = Math.max(tools.length, 1);
  return { analyses, avgLengths: sums.map((sum) => sum / count) };
}
