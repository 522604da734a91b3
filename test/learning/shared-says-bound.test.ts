// How many says a project keeps in the shared model, and how many one report body sends
// (shared-ledger.ts): a body sends at most MAX_SAYS_PER_REPORT (its newest), a project keeps its newest
// MAX_CONTRIBUTIONS_PER_PROJECT across bodies, and an older say that goes is withdrawn from the counts.
// At 1,000 kept, the eval's projects lost 11 % of their ToolLens says (docs/ranking.md).
import { describe, expect, it } from 'vitest';
import { MemoryBudget } from '../../src/memory/exports.js';
import { SharedLearning, type SharedReport } from '../../src/learning/shared/shared-learning.js';
import { MAX_CONTRIBUTIONS_PER_PROJECT, MAX_SAYS_PER_REPORT } from '../../src/learning/shared/shared-ledger.js';
import { TermKeys } from '../../src/learning/term-keys.js';

const keys = new TermKeys(Buffer.alloc(32, 7));
/** Words a report has, and says a tool's report makes: its words and its use (TOOL_USE_TERM). */
const WORDS = 24;
const SAYS_PER_TOOL = WORDS + 1;
const TOOLS_PER_BODY = MAX_SAYS_PER_REPORT / SAYS_PER_TOOL;
const NOW = Date.UTC(2026, 10, 2, 12);

const word = (tool: number, i: number) => `w${tool}x${i}`;
const toolId = (tool: number) => keys.tool({ toolName: `tool_${tool}`, description: `Tool ${tool}.` });

/** One report per tool, `from` to `from + count - 1`, each with its own words. */
function body(from: number, count: number): SharedReport[] {
  return Array.from({ length: count }, (_, i) => ({
    terms: keys.terms(Array.from({ length: WORDS }, (_, w) => word(from + i, w))),
    toolId: toolId(from + i),
    weight: 1,
  }));
}

/** Every threshold exactly two projects (k = 1, no spread): a say counts once another project's joins it. */
function learning() {
  return new SharedLearning(
    { minProjects: 1, thresholdSpread: 1, maxAssociations: 100_000, halfLifeMs: 14 * 86_400_000, maxBoost: 0.9 },
    keys,
    { memory: new MemoryBudget({ maxBytes: 64 * 1024 * 1024, projectShare: 0.25 }) },
  );
}

/** Whether the shared model holds (word, tool) for anyone. */
async function holds(shared: SharedLearning, tool: number): Promise<boolean> {
  const { model } = await shared.model();
  return model?.boosts([keys.term(word(tool, 0))], NOW, () => true).has(toolId(tool)) ?? false;
}

describe('the says a project keeps and a body sends', () => {
  it('a body sends its newest MAX_SAYS_PER_REPORT says', async () => {
    const shared = learning();
    expect(await shared.contribute('a', body(0, 2 * TOOLS_PER_BODY), NOW)).toBe(MAX_SAYS_PER_REPORT);
    expect(await shared.contribute('b', body(0, 2 * TOOLS_PER_BODY), NOW)).toBe(MAX_SAYS_PER_REPORT);
    // The first body's older half was not sent; its newer half counts.
    expect(await holds(shared, 0)).toBe(false);
    expect(await holds(shared, TOOLS_PER_BODY)).toBe(true);
  });

  it('a project keeps its newest MAX_CONTRIBUTIONS_PER_PROJECT says over its bodies, the older withdrawn', async () => {
    expect(MAX_CONTRIBUTIONS_PER_PROJECT).toBe(2 * MAX_SAYS_PER_REPORT);
    const shared = learning();
    await shared.contribute('b', body(0, TOOLS_PER_BODY), NOW);
    await shared.contribute('a', body(0, TOOLS_PER_BODY), NOW);
    await shared.contribute('a', body(TOOLS_PER_BODY, TOOLS_PER_BODY), NOW + 60_000);
    // Two bodies: the first one's says still count (at 1,000 kept they were withdrawn here).
    expect(await holds(shared, 0)).toBe(true);
    await shared.contribute('a', body(2 * TOOLS_PER_BODY, TOOLS_PER_BODY), NOW + 120_000);
    // A third: the first body's says are the oldest, withdrawn from the counts.
    expect(await holds(shared, 0)).toBe(false);
    expect(await holds(shared, TOOLS_PER_BODY - 1)).toBe(false);
  });
});
