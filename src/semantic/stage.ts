import type { RankedTool, SemanticStatus, ToolInfo } from '@catalog-search/core';
import { fuseHybrid } from './fuse-hybrid.js';
import { readsText } from './reading.js';
import { bestDots } from './tool-vectors.js';
import type { VectorProvider } from './vector-provider.js';

/**
 * The semantic stage of a search: the request's and its tools' vectors from the vector provider
 * (src/semantic: cached, or made within their bounds), each tool's best similarity over the
 * sub-queries, and the lexical ranking fused with it (`fused`). Without vectors the lexical ranking is
 * returned unchanged.
 */
export async function rankHybrid(
  vectorProvider: VectorProvider,
  request: { query: readonly string[]; tools: readonly ToolInfo[] },
  lexical: RankedTool[],
  context: {
    projectId: string;
    deadline: { remainingMs(): number; signal: AbortSignal };
    headers?: Readonly<Record<string, string>>;
    /** The tool-set id of `request.tools`, when it names exactly that list. */
    listId?: string;
  },
): Promise<{ ranked: RankedTool[]; status: SemanticStatus; fused: boolean }> {
  // A sub-query in a script the encoder cannot read is left to the words (reading.ts).
  const queries = request.query.filter(
    (query) => query.trim() !== '' && readsText(query, vectorProvider.embedder.scripts),
  );
  if (request.tools.length === 0 || queries.length === 0) return { ranked: lexical, status: 'hybrid', fused: false };
  const vectors = await vectorProvider.vectors(
    context.projectId,
    { query: queries, tools: request.tools },
    context.deadline,
    { headers: context.headers, listId: context.listId },
  );
  if (vectors.queries === undefined) return { ranked: lexical, status: vectors.status, fused: false };
  const { similarity, compared } = bestDots(vectors.queries, vectors.tools);
  // With no tool to compare, the answer stays the lexical one (and says so: no meta.fused).
  if (compared === 0) return { ranked: lexical, status: vectors.status, fused: false };
  return { ranked: fuseHybrid(lexical, request.tools, similarity), status: vectors.status, fused: true };
}
