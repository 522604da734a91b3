// Common steps (common-steps.ts): a tool far more projects used than the list's others is raised a
// little, only for requests whose best word matches are on its server.
import { describe, expect, it } from 'vitest';
import type { RankedTool, ToolInfo } from '@catalog-search/core';
import { commonStepBoosts } from '../../src/learning/shared/common-steps.js';

const MAX_BOOST = 0.81;
const tool = (serverName: string, toolName: string): ToolInfo => ({
  toolKey: `${serverName}:${toolName}`,
  toolName,
  serverName,
  description: '',
});
const TOKEN = tool('bank', 'get_user_token');
const BALANCE = tool('bank', 'query_balance');
const ALARM = tool('bank', 'delete_alarm');
const SEARCH = tool('web', 'search');
const LIST = [TOKEN, BALANCE, ALARM, SEARCH, ...Array.from({ length: 36 }, (_, i) => tool('misc', `tool_${i}`))];
const ranking = (...tools: ToolInfo[]): RankedTool[] =>
  tools.map((item, index) => ({
    tool: item,
    index,
    score: 1 - index / 10,
    relevance: 1 - index / 10,
    explanation: '',
  }));

function used(projects: ReadonlyMap<ToolInfo, number>) {
  return LIST.map((item) => ({ tool: item, projects: projects.get(item) ?? 0 }));
}

describe('commonStepBoosts', () => {
  it('raises a tool far above the list’s mean use when a best match is on its server, below the share', () => {
    const boosts = commonStepBoosts(
      used(
        new Map([
          [TOKEN, 15],
          [BALANCE, 5],
        ]),
      ),
      ranking(BALANCE, SEARCH),
      MAX_BOOST,
    );
    const step = boosts.get(TOKEN.toolKey)!;
    expect(step.commonStep).toBe(true);
    expect(step.shared).toBe(true);
    expect(step.boost).toBeGreaterThan(0.1 * MAX_BOOST);
    expect(step.boost).toBeLessThanOrEqual(0.2 * MAX_BOOST);
    // A marked-destructive tool needs more projects for the same lift.
    expect(step.cautiousBoost).toBeLessThan(step.boost);
    // Fewer projects, a smaller lift.
    expect(boosts.get(BALANCE.toolKey)!.boost).toBeLessThan(step.boost);
    expect(boosts.has(ALARM.toolKey)).toBe(false);
  });

  it('raises nothing for a request whose best matches are on other servers, or match no word', () => {
    const projects = new Map([[TOKEN, 15]]);
    expect(commonStepBoosts(used(projects), ranking(SEARCH, ...LIST.slice(4, 6)), MAX_BOOST).size).toBe(0);
    const noWord = ranking(BALANCE).map((item) => ({ ...item, relevance: 0 }));
    expect(commonStepBoosts(used(projects), noWord, MAX_BOOST).size).toBe(0);
    // Only the best three matches name the servers.
    expect(commonStepBoosts(used(projects), ranking(SEARCH, ...LIST.slice(4, 6), ALARM), MAX_BOOST).size).toBe(0);
  });

  it('use spread over every tool (wrong reports) raises none; nothing used, nothing raised', () => {
    // Every tool used by 5–7 projects: the mean is 6, and 30 projects are 4.7 times it, not 8.
    const spread = new Map(LIST.map((item, i) => [item, 5 + (i % 3)] as const));
    spread.set(TOKEN, 30);
    expect(commonStepBoosts(used(spread), ranking(BALANCE), MAX_BOOST).size).toBe(0);
    spread.set(TOKEN, 80);
    expect([...commonStepBoosts(used(spread), ranking(BALANCE), MAX_BOOST).keys()]).toEqual([TOKEN.toolKey]);
    expect(commonStepBoosts(used(new Map()), ranking(BALANCE), MAX_BOOST).size).toBe(0);
  });
});
