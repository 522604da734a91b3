// `filter.tools` off the event loop. RE2 is linear, yet one small request (one 512-character tool, five
// rules near the instruction cap) held the event loop most of a second, and one project sending it back
// to back made another project's searches many times slower
// (docs/performance.md#filtertools-rules-and-searches-waiting-on-a-model).
// Core refuses a rule set that could cost over MAX_STEPS_PER_TOOL on one tool, and checks time
// between tools; the rest runs here, in one worker thread (on a 2-core host the other core serves
// requests), its time reported so that the route charges it to the project's work budget.
//
// The worker takes tasks in turns between projects (OneThreadPool): one project's filters wait behind
// at most one task of each other project, and a project may have
// only MAX_QUEUED_PER_PROJECT waiting; more are refused 429 rather than queued without bound. Yet
// while other projects' rules ran to their budget in turn, a search waited for the thread past its
// deadline (seconds; with 16 such projects, minutes). So a small set of globs, the everyday filter,
// runs on the caller's thread without waiting at all, and a wait for the thread ends at the search's
// deadline (429, the task taken out of the line; a task the worker has begun runs to its budget).
import { runToolNameRules, type NamedTool, type ToolInfo } from '@catalog-search/core';
import { ProblemError } from '../http/errors.js';
import { OneThreadPool, ThreadWaitEnded } from './one-thread-pool.js';
import type { FilterRuleResult, FilterRuleTask } from './filter-rule-worker.js';

// From the TypeScript sources (tests, bench) the worker is a .ts file that tsx loads.
const fromSource = import.meta.url.endsWith('.ts');
const WORKER = new URL(`./filter-rule-worker.${fromSource ? 'ts' : 'js'}`, import.meta.url);

/**
 * Time the rules may take on one list in the worker. Longer than the client's 500 ms (which runs on
 * its caller's thread): here a slow filter holds no other request, only its own project's budget,
 * and the rules that an everyday list needs (the ReDoS test's 1,000 tools of 1,000 characters) must
 * not be refused because the machine is busy. Why this bound: docs/performance.md#the-filter-threads-time-budget
 */
const WORKER_FILTER_BUDGET_MS = 2_000;
/** Rule sets one project may have waiting for the worker. */
const MAX_QUEUED_PER_PROJECT = 4;
/** Rule sets waiting in all. */
const MAX_QUEUED = 64;
/**
 * Globs run on the request's thread when (4 × characters + 8 per glob, more than the RE2 instructions
 * a glob compiles to) × the characters of the list's names and keys stays under this: about a
 * millisecond of matching (figures in docs/performance.md), less than a hand-over to the thread.
 */
const INLINE_STEPS = 500_000;

export class FilterRulePool {
  readonly #pool = new OneThreadPool<FilterRuleTask, FilterRuleResult>({
    worker: WORKER,
    minThreads: 0,
    // A service that filters keeps its thread; one that does not, no thread at all (tests build many apps).
    idleTimeout: 60_000,
  });

  /**
   * Runs `rules` on the names and keys of `tools`: small glob sets here, the rest in the worker.
   * Refuses 429 when the queue is full, or when `signal` (the search's deadline) aborts before the
   * worker took the task.
   */
  async run(
    projectId: string,
    rules: readonly string[],
    tools: readonly ToolInfo[],
    signal?: AbortSignal,
  ): Promise<FilterRuleResult> {
    const named: NamedTool[] = tools.map(({ toolName, toolKey }) => ({ toolName, toolKey }));
    if (runsInline(rules, named)) {
      const started = performance.now();
      const run = runToolNameRules(rules, named, WORKER_FILTER_BUDGET_MS);
      return { run, ms: performance.now() - started };
    }
    if (this.#pool.waitingOf(projectId) >= MAX_QUEUED_PER_PROJECT || this.#pool.waiting >= MAX_QUEUED) {
      throw new ProblemError(
        'RATE_LIMITED',
        'Too many filter.tools rule sets of this project are waiting to run; retry in 1 s.',
        {
          headers: { 'retry-after': '1' },
        },
      );
    }
    const task = { rules: [...rules], tools: named, budgetMs: WORKER_FILTER_BUDGET_MS };
    try {
      return await this.#pool.run(projectId, () => ({ task }), signal);
    } catch (error) {
      if (!(error instanceof ThreadWaitEnded)) throw error;
      throw new ProblemError(
        'RATE_LIMITED',
        "The filter.tools thread was busy with other rule sets until this search's deadline; retry in 1 s, or filter with fewer tools or plain globs.",
        { headers: { 'retry-after': '1' } },
      );
    }
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}

/** Whether `rules` are globs cheap enough on `tools` to run without the worker (INLINE_STEPS). */
function runsInline(rules: readonly string[], tools: readonly NamedTool[]): boolean {
  let perCharacter = 0;
  for (const rule of rules) {
    if (rule.replace(/^!/, '').startsWith('/')) return false;
    perCharacter += 4 * rule.length + 8;
  }
  let characters = 0;
  for (const tool of tools) {
    characters += tool.toolName.length + tool.toolKey.length;
    if (perCharacter * characters > INLINE_STEPS) return false;
  }
  return true;
}
