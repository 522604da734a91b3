// Relevance says how much of the request a tool covers: one word of several is a weak match, and a
// request nothing in the list serves gets a low top relevance.
import { describe, expect, it } from 'vitest';
import { rankTools, type ToolInfo } from '../src/index.js';

const filler: ToolInfo[] = Array.from({ length: 60 }, (_, i) => ({
  toolKey: `misc:tool_${i}`,
  toolName: `tool_${i}`,
  serverName: 'misc',
  description: `Does unrelated thing number ${i} for a user.`,
}));
const tools: ToolInfo[] = [
  ...filler,
  {
    toolKey: 'fx:convert_currency',
    toolName: 'convert_currency',
    serverName: 'fx',
    description: 'Convert an amount between currencies at the latest exchange rate.',
  },
  {
    toolKey: 'geo:euro_countries',
    toolName: 'euro_countries',
    serverName: 'geo',
    description: 'List the countries of the euro area.',
  },
];

const relevanceOf = (query: string, key: string) =>
  rankTools({ query: [query], tools }).find((ranked) => ranked.tool.toolKey === key)?.relevance ?? 0;

describe('calibrated relevance', () => {
  it('a tool matching one of several request words is a weak match; one covering the request is a strong one', () => {
    const query = 'convert 100 euro to another currency at the exchange rate';
    // "euro" is the rarest word of the request and in the tool's name: still under half.
    expect(relevanceOf(query, 'geo:euro_countries')).toBeLessThan(0.45);
    // Covering (almost) every word of the request: near 1 (0.79 with the earlier curve, 1 − exp(−2.2 × coverage)).
    expect(relevanceOf(query, 'fx:convert_currency')).toBeGreaterThan(0.9);
  });

  it('a request nothing in the list serves gets a low top relevance', () => {
    const top = rankTools({ query: ['train a neural network on my photo collection'], tools })[0]?.relevance ?? 0;
    expect(top).toBeLessThan(0.25);
  });
});
