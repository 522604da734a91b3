import type { RankedTool, ToolInfo } from '@catalog-search/core';
import { DESTRUCTIVE_EVIDENCE, type LearnedBoost } from '../boost.js';

/** A tool is a common step when the projects that used it number this many times the list's mean per tool. */
const COMMON_STEP_RATIO = 8;
/** The largest common-step boost, as a share of shared learning's cap: a prior, not evidence about the request. */
const COMMON_STEP_SHARE = 0.2;
/** The request's best word matches: a common step is raised only when one of them is on its server. */
const MATCHED_SERVERS_FROM = 3;

/**
 * Common steps: a tool that far more projects used than the list's other tools, whatever their
 * requests said: a login or token tool that many requests need first, today's date. Its requests'
 * words differ each time, so no (term, tool) association passes k; its use by more than k projects does
 * (TOOL_USE_TERM, shared-model.ts). It is raised a little, only for a request whose best word matches
 * are on its server (a list of many servers keeps its popular tools out of other servers' requests),
 * and only when it stands far above the list's mean use (30 % wrong reports spread use over every tool
 * and raise none). Figures: docs/ranking.md, "Shared learning across projects".
 *
 * `list`: every tool of the request's list with the decayed number of projects that used it (0 under
 * k); `maxBoost`: shared learning's cap.
 */
export function commonStepBoosts(
  list: ReadonlyArray<{ tool: ToolInfo; projects: number }>,
  ranked: readonly RankedTool[],
  maxBoost: number,
): Map<string, LearnedBoost> {
  const boosts = new Map<string, LearnedBoost>();
  let total = 0;
  for (const { projects } of list) total += projects;
  if (!(total > 0)) return boosts;
  const servers = new Set<string>();
  for (const item of ranked.slice(0, MATCHED_SERVERS_FROM)) {
    if (item.relevance > 0) servers.add(item.tool.serverName);
  }
  const mean = total / list.length;
  for (const { tool, projects } of list) {
    if (projects < COMMON_STEP_RATIO * mean || !servers.has(tool.serverName)) continue;
    // From 0 at the threshold's mean towards the share, shrunk by n / (n + 1) as the term associations are.
    const full = maxBoost * COMMON_STEP_SHARE * (1 - mean / projects);
    boosts.set(tool.toolKey, {
      boost: full * (projects / (projects + 1)),
      cautiousBoost: full * (projects / (projects + DESTRUCTIVE_EVIDENCE)),
      similarRequests: Math.max(1, Math.round(projects)),
      shared: true,
      commonStep: true,
    });
  }
  return boosts;
}
