// What the model sees: candidate selection by token budget, and the prompt size it yields.
import { existsSync, readFileSync } from 'node:fs';
import { rankTools, rankToolsBySubQuery, type ToolInfo } from '@catalog-search/core';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { createReranker } from '../../src/rerank/exports.js';
import type { PromptMessage } from '../../src/rerank/prompt.js';
import { everydayTools, syntheticTools } from '../fixtures/tools.js';

/** The prompt's size counted from scratch on the final messages (what the endpoint receives). */
const trueTokens = (messages: PromptMessage[]) =>
  messages.reduce((sum, message) => sum + countTokens(message.content) + 4, 0) + 3;

function plan(query: string[], tools: ToolInfo[], promptTokenBudget = 7000) {
  const stage = createReranker({ model: 'm', promptTokenBudget });
  return stage.plan({ query, tools, lexical: rankTools({ query, tools }) }, 'project-a');
}

describe('token budget', () => {
  it('puts a small list in whole', () => {
    const result = plan(['send an email'], everydayTools);
    expect(result.whole).toBe(true);
    expect(result.candidates).toHaveLength(everydayTools.length);
  });

  it.each([7000, 3000])('keeps the prompt for 150 tools within a %i-token budget', (budget) => {
    const tools = syntheticTools(150);
    const result = plan(['export the invoice report', 'sync payments'], tools, budget);
    expect(trueTokens(result.messages)).toBeLessThanOrEqual(budget);
    expect(result.promptTokens).toBeLessThanOrEqual(budget);
    expect(result.promptTokens).toBeGreaterThanOrEqual(trueTokens(result.messages)); // the estimate is an upper bound
    expect(result.candidates.length).toBeGreaterThan(budget === 7000 ? 80 : 30);
    if (budget === 3000) expect(result.whole).toBe(false);
  });

  it('counts a long context and long queries against the budget', () => {
    const tools = syntheticTools(150);
    const result = plan(['export the invoice report '.repeat(20)], tools, 3000);
    const withContext = createReranker({ model: 'm', promptTokenBudget: 3000 }).plan(
      {
        query: ['export the invoice report'],
        context: 'background '.repeat(300),
        tools,
        lexical: rankTools({ query: ['export the invoice report'], tools }),
      },
      'p',
    );
    expect(trueTokens(result.messages)).toBeLessThanOrEqual(3000);
    expect(trueTokens(withContext.messages)).toBeLessThanOrEqual(3000);
  });

  const livemcpbench = new URL('../../../shared/bench/livemcpbench/', import.meta.url);
  it.skipIf(!existsSync(livemcpbench))('stays within the budget on LiveMCPBench (527 tools)', () => {
    const tools = readFileSync(new URL('catalog.jsonl', livemcpbench), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const { toolKey, toolName, serverName, description, inputSchema } = JSON.parse(line) as ToolInfo;
        return { toolKey, toolName, serverName, description, inputSchema } as ToolInfo;
      });
    const queries = readFileSync(new URL('queries.jsonl', livemcpbench), 'utf8')
      .split('\n')
      .filter(Boolean)
      .slice(0, 10);
    for (const line of queries) {
      const result = plan([(JSON.parse(line) as { query: string }).query], tools);
      expect(trueTokens(result.messages)).toBeLessThanOrEqual(7000);
      expect(result.candidates.length).toBeGreaterThan(100);
    }
  });
});

describe('selection beyond lexical order', () => {
  // 40 servers of 6 tools; the request names one tool of server 7 only.
  const tools: ToolInfo[] = Array.from({ length: 240 }, (_, at) => {
    const server = Math.floor(at / 6);
    return {
      toolKey: `s${server}:op_${at}`,
      toolName: at === 42 ? 'upload_spreadsheet' : `operation_${at}`,
      serverName: `Server ${server}`,
      description: `Performs step ${at} of a workflow that has many parts and an elaborate description. `.repeat(2),
    };
  });

  it('brings the other tools of a matching server', () => {
    const result = plan(['upload spreadsheet'], tools, 2000);
    expect(result.whole).toBe(false);
    const chosen = new Set(result.candidates.map((candidate) => tools[candidate.toolIndex]!.serverName));
    const server7 = result.candidates.filter((candidate) => tools[candidate.toolIndex]!.serverName === 'Server 7');
    expect(server7).toHaveLength(6);
    expect(chosen.size).toBeGreaterThan(1); // and still fills the rest of the budget
  });

  it('covers every sub-query, even one the overall lexical order buries', () => {
    const crowded = syntheticTools(300);
    const query = ['export invoice report', 'delete shipment'];
    // An overall order in which the second step's tools never come up (as a merged-bag ranker can).
    const lexical = rankTools({ query: [query[0]!], tools: crowded });
    // Each step's own order, as the lexical stage gives it with a multi-step request.
    const { bySubQuery } = rankToolsBySubQuery({ query, tools: crowded });
    // Server expansion off, so only sub-query coverage can bring them in.
    const stage = createReranker({ model: 'm', promptTokenBudget: 1500, candidates: { serverShare: 0 } });
    const result = stage.plan({ query, tools: crowded, lexical, bySubQuery }, 'project-a');
    // Without the steps' own orders, the buried step does not come up: the orders are what bring it in.
    const withoutSteps = stage.plan({ query, tools: crowded, lexical }, 'project-a');
    expect(
      withoutSteps.candidates.some((candidate) => crowded[candidate.toolIndex]!.toolName.startsWith('delete_shipment')),
    ).toBe(false);
    const names = result.candidates.map((candidate) => crowded[candidate.toolIndex]!.toolName);
    expect(names.some((name) => name.startsWith('delete_shipment'))).toBe(true);
    expect(names.some((name) => name.startsWith('export_invoice'))).toBe(true);
  });

  it('shortens lines down the ranking, so a long list reaches deeper into the budget', () => {
    const crowded = syntheticTools(600);
    const query = ['export invoice report'];
    const lexical = rankTools({ query, tools: crowded });
    const tiered = createReranker({ model: 'm', promptTokenBudget: 7000 }).plan(
      { query, tools: crowded, lexical },
      'p',
    );
    // One size after the detailed top (the earlier lines: 80 description characters, 4 parameter names).
    const flat = createReranker({
      model: 'm',
      promptTokenBudget: 7000,
      candidates: { compactDescriptionChars: 80, compactParams: 4, briefDescriptionChars: 80, briefParams: 4 },
    }).plan({ query, tools: crowded, lexical }, 'p');
    expect(tiered.whole).toBe(false);
    expect(tiered.candidates.length).toBeGreaterThan(flat.candidates.length * 1.2);
    expect(trueTokens(tiered.messages)).toBeLessThanOrEqual(7000);
    // Detailed (first 24), compact (to 100), brief (after): each tier's description and parameter names shorter.
    const description = (line: string) => line.split(' | ').slice(5).join(' | ');
    const params = (line: string) => line.split(' | ')[4]!;
    const [detailed, compact, brief] = [tiered.candidates[0]!, tiered.candidates[50]!, tiered.candidates[150]!].map(
      (c) => c.line,
    );
    expect(description(detailed!).length).toBeGreaterThan(100);
    expect(description(compact!).length).toBeLessThanOrEqual(61);
    expect(description(brief!).length).toBeLessThanOrEqual(41);
    expect(params(detailed!)).toBe('id, owner, status, limit, cursor');
    expect(params(compact!)).toBe('id, owner +3');
    expect(params(brief!)).toBe('id +4');
  });

  it('shows candidates in lexical order with short ids and the score as a hint', () => {
    const result = plan(['upload spreadsheet'], tools, 2000);
    expect(result.candidates.map((candidate) => candidate.id).slice(0, 3)).toEqual(['t1', 't2', 't3']);
    expect(result.candidates[0]!.line).toMatch(/^t1 \| upload_spreadsheet \| Server 7 \| [01]\.\d\d \| - \| Performs/);
  });
});
