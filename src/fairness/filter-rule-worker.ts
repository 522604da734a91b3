// The piscina worker of FilterRulePool: runs a request's `filter.tools` rules on its tools' names and
// keys (core's runToolNameRules) and reports how long that took, so the route can charge it.
import { runToolNameRules, type NamedTool, type ToolNameRun } from '@catalog-search/core';

export interface FilterRuleTask {
  rules: string[];
  tools: NamedTool[];
  budgetMs: number;
}

export interface FilterRuleResult {
  run: ToolNameRun;
  /** Milliseconds this thread spent compiling and matching (not the wait in the queue). */
  ms: number;
}

export default function runTask({ rules, tools, budgetMs }: FilterRuleTask): FilterRuleResult {
  const started = performance.now();
  const run = runToolNameRules(rules, tools, budgetMs);
  // The verdicts are one byte per tool (at most MAX_TOOLS): copied back, not worth moving.
  return { run, ms: performance.now() - started };
}
