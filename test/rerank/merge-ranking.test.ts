import { rankTools, type RankedTool } from '@catalog-search/core';
import { describe, expect, it } from 'vitest';
import { GRADE_BANDS, LEFT_OUT_CAP, mergeRanking } from '../../src/rerank/merge-ranking.js';
import { everydayTools } from '../fixtures/tools.js';

const tools = everydayTools;
const lexical: RankedTool[] = rankTools({ query: ['list calendar events and post a slack message'], tools });
const indexOf = (name: string) => tools.findIndex((tool) => tool.toolName === name);
const all = new Set(tools.map((_, index) => index));

describe('mergeRanking', () => {
  it('orders by grade, then by the model’s order, with relevance inside each grade’s band', () => {
    const ranked = mergeRanking({
      tools,
      lexical,
      grades: [
        { toolIndex: indexOf('slack_post_message'), grade: 2, why: 'posts' },
        { toolIndex: indexOf('calendar_list_events'), grade: 3, why: 'lists' },
        { toolIndex: indexOf('slack_list_channels'), grade: 2, why: 'finds the channel' },
      ],
      shown: all,
      complete: true,
    });
    expect(ranked.slice(0, 3).map((entry) => entry.tool.toolName)).toEqual([
      'calendar_list_events',
      'slack_post_message',
      'slack_list_channels',
    ]);
    expect(ranked[0]!.relevance).toBe(GRADE_BANDS[3]!.high);
    for (const entry of ranked.slice(1, 3)) {
      expect(entry.relevance).toBeGreaterThanOrEqual(GRADE_BANDS[2]!.low);
      expect(entry.relevance).toBeLessThanOrEqual(GRADE_BANDS[2]!.high);
    }
    expect(ranked[1]!.relevance).toBeGreaterThan(ranked[2]!.relevance);
  });

  it('caps tools the model saw and left out of a complete answer; keeps their lexical order', () => {
    const ranked = mergeRanking({
      tools,
      lexical,
      grades: [{ toolIndex: indexOf('send_email'), grade: 1, why: '' }],
      shown: all,
      complete: true,
    });
    const rest = ranked.slice(1);
    expect(rest.map((entry) => entry.index)).toEqual(
      lexical.filter((entry) => entry.index !== indexOf('send_email')).map((entry) => entry.index),
    );
    for (const entry of rest) expect(entry.relevance).toBeLessThanOrEqual(LEFT_OUT_CAP);
  });

  it('caps unjudged tools of a partial answer at the bottom of the lowest band used, not lower', () => {
    const ranked = mergeRanking({
      tools,
      lexical,
      grades: [{ toolIndex: indexOf('send_email'), grade: 2, why: '' }],
      shown: all,
      complete: false,
    });
    const next = ranked[1]!;
    expect(next.relevance).toBeLessThanOrEqual(GRADE_BANDS[2]!.low);
    expect(next.relevance).toBeGreaterThan(LEFT_OUT_CAP);
  });

  it('never lets relevance rise down the list, and keeps every lexical tool', () => {
    const ranked = mergeRanking({ tools, lexical, grades: [], shown: new Set(), complete: false });
    expect(ranked).toHaveLength(lexical.length);
    ranked.forEach((entry, at) => at > 0 && expect(entry.relevance).toBeLessThanOrEqual(ranked[at - 1]!.relevance));
  });

  it('sanitises and truncates the model’s explanation', () => {
    const why = `line one\nline two\u0000\u202e ${'long '.repeat(100)}`;
    const [first] = mergeRanking({
      tools,
      lexical,
      grades: [{ toolIndex: 0, grade: 3, why }],
      shown: all,
      complete: true,
    });
    expect(first!.explanation).not.toMatch(/[\u0000-\u001f\u202e]/);
    expect(first!.explanation.length).toBeLessThan(230);
  });
});
