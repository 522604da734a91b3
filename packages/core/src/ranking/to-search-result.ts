import type { SearchResult } from '../schemas.js';
import type { RankedTool } from './types.js';

/** The wire form of a ranked tool: the same mapping in the service and in the client's fallback. */
export function toSearchResult(ranked: RankedTool): SearchResult {
  const { tool } = ranked;
  const result: SearchResult = {
    toolKey: tool.toolKey,
    toolName: tool.toolName,
    serverName: tool.serverName,
    relevance: ranked.relevance,
    explanation: ranked.explanation,
  };
  if (tool.description !== undefined) result.description = tool.description;
  if (tool.annotations !== undefined) result.annotations = tool.annotations;
  return result;
}
