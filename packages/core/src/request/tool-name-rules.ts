import { compileToolNamePatterns } from './tool-name-patterns.js';
import type { RequestProblem } from './tool-list.js';

/**
 * `filter.tools` applied to a list: which tools pass the rules, at a bounded cost. RE2 matches in
 * linear time, but one name can still be costly: matching costs up to (instructions × characters)
 * steps, and a single 512-character tool whose name and key were matched against five rules
 * `/(?:(?:a{1,30}){1,30})[^a]/` (9,010 instructions, under the size bound) held the event loop most
 * of a second, with no chance to stop between tools. So a rule set is refused before it runs when one
 * tool of the list could cost more than MAX_STEPS_PER_TOOL, which makes the time check between tools
 * effective: the whole run then stops within about one tool's cost of its budget.
 */
export type ToolNameRun = { ok: true; passes: Uint8Array } | { ok: false; problems: RequestProblem[] };

/**
 * RE2 steps (instructions × characters of name and key) one tool may cost. The attack above costs
 * 9,010 × 1,024 ≈ 9.2 M steps, a ninth of that is one tool's worst at this bound, and ordinary rules
 * stay far below it (64 server globs, ~700 instructions, on a 128-character name and key: 90 k steps).
 * Figures: docs/performance.md#filtertools-rules-and-searches-waiting-on-a-model.
 */
export const MAX_STEPS_PER_TOOL = 1_000_000;

/**
 * RE2 steps a run may take before its time budget is checked: a run this small is cheap however long a
 * busy machine or a cold process makes it take in wall time. A 2-tool list with one rule was refused
 * (over its time budget) when the client's first local search compiled RE2JS's code on a busy machine;
 * the budget is there to stop a costly run, not to refuse a small one.
 */
const STEPS_BEFORE_TIME_CHECK = MAX_STEPS_PER_TOOL;

export interface NamedTool {
  toolName: string;
  toolKey: string;
}

/**
 * Which of `tools` pass `rules` (1 = passes, by index), or the problems: a rule RE2 cannot run, rules
 * too large, too costly for the longest tool, or still matching after `budgetMs` (once past
 * STEPS_BEFORE_TIME_CHECK).
 */
export function runToolNameRules(
  rules: readonly string[],
  tools: readonly NamedTool[],
  budgetMs: number,
  field = '/filter/tools',
): ToolNameRun {
  const started = performance.now();
  const compiled = compileToolNamePatterns(rules, field);
  if (!compiled.ok) return compiled;
  const { matcher } = compiled;
  let longest = 0;
  for (const tool of tools) longest = Math.max(longest, tool.toolName.length + tool.toolKey.length);
  if (matcher.instructions * longest > MAX_STEPS_PER_TOOL) {
    const message =
      `are too costly for the longest tool of this list (${matcher.instructions} RE2 instructions × ${longest} characters of name and key; ` +
      `at most ${MAX_STEPS_PER_TOOL} per tool): use fewer or simpler rules (a counted repetition such as {1,30} is costly)`;
    return { ok: false, problems: [{ field, message }] };
  }
  const passes = new Uint8Array(tools.length);
  const until = started + budgetMs;
  let steps = 0;
  for (const [index, tool] of tools.entries()) {
    if (matcher.matches(tool.toolName, tool.toolKey)) passes[index] = 1;
    steps += matcher.instructions * (tool.toolName.length + tool.toolKey.length);
    if (steps > STEPS_BEFORE_TIME_CHECK && performance.now() > until) {
      return {
        ok: false,
        problems: [{ field, message: `took over ${budgetMs} ms on this list: use fewer or simpler rules` }],
      };
    }
  }
  return { ok: true, passes };
}
