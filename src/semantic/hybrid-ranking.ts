import type { RankedTool, ToolInfo } from '@catalog-search/core';
import { bestDot } from './embedder.js';
import { fuseHybrid } from './fuse-hybrid.js';
import type { SemanticStage, SemanticStatus } from './semantic-stage.js';

/**
 * The semantic step of a search: the request's and its tools' vectors (cached, or embedded within the
 * stage's share of the deadline), each tool's best similarity over the sub-queries, and the lexical
 * ranking fused with it. Without vectors the lexical ranking is returned unchanged.
 */
export async function rankHybrid(
  stage: SemanticStage,
  request: { query: readonly string[]; tools: readonly ToolInfo[] },
  lexical: RankedTool[],
  context: { projectId: string; deadline: { remainingMs(): number; signal: AbortSignal }; headers?: Readonly<Record<string, string>> },
): Promise<{ ranked: RankedTool[]; status: SemanticStatus }> {
  const queries = request.query.filter((query) => query.trim() !== '');
  if (request.tools.length === 0 || queries.length === 0) return { ranked: lexical, status: 'hybrid' };
  const vectors = await stage.vectors(context.projectId, { query: queries, tools: request.tools }, context.deadline, context.headers);
  if (vectors.queries === undefined) return { ranked: lexical, status: vectors.status };
  const similarity = new Float64Array(request.tools.length).fill(Number.NaN);
  const { queries: queryVectors, tools } = vectors;
  // Only vectors of the query's length compare (one read from Redis before this process learnt an
  // endpoint's length may not): others rank lexically.
  const length = queryVectors[0]!.length;
  for (let index = 0; index < tools.length; index += 1) {
    const vector = tools[index];
    if (vector?.length === length) similarity[index] = bestDot(queryVectors, vector);
  }
  return { ranked: fuseHybrid(lexical, request.tools, similarity), status: vectors.status };
}
