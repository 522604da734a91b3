// A ranking posted from another thread (the service's ranking thread) answers as the ranking itself:
// every tool's place, score, relevance and explanation, after a structured clone (what postMessage does).
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  loadLanguages,
  postRanking,
  rankToolsBySubQuery,
  receiveRanking,
  type RankedTool,
  type ToolListSearchRequest,
} from '../src/index.js';

const sample = JSON.parse(
  readFileSync(new URL('../../../examples/search-request.json', import.meta.url), 'utf8'),
) as ToolListSearchRequest;

beforeAll(() => loadLanguages(['ja']));

const seen = (ranked: RankedTool[]) =>
  ranked.map(({ tool, index, score, relevance, explanation }) => ({ tool, index, score, relevance, explanation }));

describe('postRanking and receiveRanking', () => {
  it.each([
    [['create an issue on github']],
    [['list my repos', 'send an e-mail to bob']], // readings, and a label per sub-query
    [['slack']], // the server only
    [['create_pull_request']], // named exactly
    [['send a message but not to slack']], // a negated term
    [['カレンダーに明日の会議を追加して']], // cross-lingual readings
    [['what is on my calendar tomorrow', 'delete the old event', 'post the summary to slack']],
  ])('%j: every ranked tool as ranked, explanation included', (query) => {
    const ranking = rankToolsBySubQuery({ query, tools: sample.tools });
    expect(ranking.ranked.length).toBeGreaterThan(1);
    const received = receiveRanking(structuredClone(postRanking(ranking)), sample.tools);
    expect(seen(received.ranked)).toEqual(seen(ranking.ranked));
    expect(received.bySubQuery).toEqual(ranking.bySubQuery);
    expect(received.ranked.every(({ tool, index }) => tool === sample.tools[index])).toBe(true);
  });

  it('refuses a ranking core did not make', () => {
    const [tool] = sample.tools;
    const made = { tool: tool!, index: 0, score: 1, relevance: 1, explanation: 'mine' };
    expect(() => postRanking({ ranked: [made], bySubQuery: [] })).toThrow(/made by core/);
  });
});
