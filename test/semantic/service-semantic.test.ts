// The semantic stage inside the real service with an embeddings endpoint (our test server, the real
// SDK over HTTP): the fused ranking answers without an LLM, fills the LLM's prompt with one, and a
// failing endpoint degrades to the lexical answer, named in meta.semantic.
import type { SearchResponse, ToolInfo } from '@catalog-search/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/index.js';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { startOpenAITestServer, promptCandidates, type OpenAITestServer } from '../helpers/openai-test-server.js';
import { searchAs } from '../helpers/search.js';

// 300 filler tools that share a word of the request, and one calendar tool that shares none of them.
const tools: ToolInfo[] = [
  ...Array.from({ length: 300 }, (_, i) => ({
    toolKey: `notes:note_${i}`,
    toolName: `note_${i}`,
    serverName: `notes${i}`,
    description: `Keep note ${i} as a reminder for tomorrow.`,
  })),
  {
    toolKey: 'gcal:list_events',
    toolName: 'list_events',
    serverName: 'gcal',
    description: 'List the events in a Google Calendar.',
  },
];
const query = ['what is on my plate tomorrow'];
// Test vectors: "meaning" is whether a text is about the schedule (the request, the calendar tool), with
// a little per-text variation so that the list has a spread. The request is embedded as `queryText`
// makes it ("what on plate tomorrow": filler words left out).
const vector = (text: string): number[] => {
  const aboutSchedule = /calendar|on (?:my )?plate/i.test(text);
  const jitter = (text.length % 7) / 100;
  return aboutSchedule ? [1, 0.05, jitter] : [0.05, 1, jitter];
};

let embeddings: OpenAITestServer;
const embeddingsConfig = (baseUrl: string, extra: Partial<Config> = {}): Config =>
  testConfig({
    embeddings: {
      endpoint: { baseUrl, apiKey: undefined, model: 'test-embed' },
      threads: 1,
      backgroundNice: 10,
      cacheBytes: 4 * 1024 * 1024,
      waitShare: 0.5,
      maxQueuedPerProject: 1000,
    },
    ...extra,
  });

beforeAll(async () => {
  embeddings = await startOpenAITestServer();
});
afterAll(() => embeddings.close());
afterEach(() => embeddings.setEmbeddings({ kind: 'vectors', vector }));

async function search(service: RunningApp, projectId: string, maxResults = 50): Promise<SearchResponse> {
  const response = await searchAs<SearchResponse>(service, { query, tools, maxResults }, { projectId });
  expect(response.status).toBe(200);
  return response.body;
}

describe('service with an embeddings endpoint', () => {
  it('without an LLM: the fused ranking lifts the tool that matches by meaning among weak word matches, and logs the source', async () => {
    embeddings.setEmbeddings({ kind: 'vectors', vector });
    const service = await startApp(embeddingsConfig(embeddings.baseURL));
    try {
      // No word of the request matches the calendar tool, so the lexical ranking leaves it out; fused
      // (its semantic rank 1 weighs 0.15 / 10, as lexical rank 57 does) it comes before most of the
      // 300 word matches.
      const answer = await search(service, 'p-fused', 100);
      expect(answer.meta.semantic).toBe('hybrid');
      const at = answer.results.findIndex((result) => result.toolKey === 'gcal:list_events');
      expect(at).toBeGreaterThanOrEqual(0);
      expect(answer.results[at]?.explanation).toMatch(/matched by meaning/);
      expect(
        service.logs.lines.some(
          (line) => line.msg === 'semantic stage on: embeddings endpoint' && line.model === 'test-embed',
        ),
      ).toBe(true);
      expect(service.logs.lines.find((line) => line.audit === 'search')).toMatchObject({ semantic: 'hybrid' });
    } finally {
      await service.close();
    }
  });

  it('EMBEDDINGS_SCRIPTS: a Japanese request finds the calendar tool by meaning with a model that reads every script, and nothing with one that reads Latin only', async () => {
    // A multilingual model: 予定 ("schedule") is about the schedule as "calendar" is.
    embeddings.setEmbeddings({
      kind: 'vectors',
      vector: (text) => (/予定/.test(text) ? [1, 0.05, (text.length % 7) / 100] : vector(text)),
    });
    const japanese = { query: ['明日の予定は何ですか'], tools, maxResults: 5 };
    const everyScript = await startApp(embeddingsConfig(embeddings.baseURL));
    try {
      const answer = await searchAs<SearchResponse>(everyScript, japanese, { projectId: 'p-ja' });
      expect(answer.body.meta.semantic).toBe('hybrid');
      expect(answer.body.results[0]).toMatchObject({ toolKey: 'gcal:list_events' });
      expect(answer.body.results[0]?.explanation).toMatch(/matched by meaning/);
    } finally {
      await everyScript.close();
    }
    const config = embeddingsConfig(embeddings.baseURL);
    config.embeddings!.endpoint!.scripts = ['Latin'];
    const latinOnly = await startApp(config);
    try {
      const answer = await searchAs<SearchResponse>(latinOnly, japanese, { projectId: 'p-ja' });
      expect(answer.status).toBe(200);
      // Word matches through the Japanese dictionary may answer; nothing is matched by meaning.
      expect(answer.body.results.filter((result) => /by meaning/.test(result.explanation ?? ''))).toEqual([]);
      expect(answer.body.results.some((result) => result.toolKey === 'gcal:list_events')).toBe(false);
      expect(answer.body.meta.fused).toBeUndefined();
      // An English request is still read by that model.
      expect((await search(latinOnly, 'p-en')).results.some((result) => result.toolKey === 'gcal:list_events')).toBe(
        true,
      );
    } finally {
      await latinOnly.close();
    }
  });

  it('with an LLM: the tool that matches by meaning reaches the prompt, which the lexical ranking alone fills with word matches', async () => {
    embeddings.setEmbeddings({ kind: 'vectors', vector });
    const llm = await startOpenAITestServer();
    const llmConfig = {
      baseUrl: llm.baseURL,
      apiKey: 'k',
      model: 'test-model',
      promptTokenBudget: 3000,
      cacheTtlMs: 0,
      cacheEntriesPerProject: 10,
    };
    const withSemantic = await startApp(embeddingsConfig(embeddings.baseURL, { llm: llmConfig }));
    const lexicalOnly = await startApp(testConfig({ llm: llmConfig }));
    const inPrompt = () =>
      promptCandidates(llm.requests.at(-1)!.body).some((candidate) => candidate.line.includes('list_events'));
    try {
      expect((await search(lexicalOnly, 'p-llm')).meta.semantic).toBe('off');
      expect(inPrompt()).toBe(false);
      expect((await search(withSemantic, 'p-llm')).meta.semantic).toBe('hybrid');
      expect(inPrompt()).toBe(true);
    } finally {
      await withSemantic.close();
      await lexicalOnly.close();
      await llm.close();
    }
  });

  it('a failing endpoint: the lexical answer, meta.semantic names why', async () => {
    embeddings.setEmbeddings({ kind: 'error', status: 500 });
    const service = await startApp(embeddingsConfig(embeddings.baseURL));
    try {
      const answer = await search(service, 'p-failing');
      expect(answer.meta).toMatchObject({ ranker: 'bm25', semantic: 'upstream_error' });
      expect(answer.results.every((result) => !/matched by meaning/.test(result.explanation ?? ''))).toBe(true);
    } finally {
      await service.close();
    }
  });
});
