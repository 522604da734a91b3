// The semantic row's `gold z`: how far a request's gold tools stand out from its similarity to the
// whole list, in standard deviations (the scale of the --oracle ceiling in docs/ranking.md).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolInfo } from '@catalog-search/core';
import { afterAll, expect, it } from 'vitest';
import { DiskVectors, SemanticIndex, semanticRanker } from '../../eval/semantic-rankers.js';

const dir = mkdtempSync(join(tmpdir(), 'gold-z-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Unit vectors by the first word of the text: 'alpha' along axis 0, 'beta' along 1, anything else along 2.
const axis = (text: string) => (text.toLowerCase().includes('alpha') ? 0 : text.toLowerCase().includes('beta') ? 1 : 2);
const embedder = {
  model: 'axes',
  embed: async (texts: string[]) =>
    texts.map((text) => Float32Array.from([0, 1, 2], (i) => (i === axis(text) ? 1 : 0))),
};

it('is the gold tools mean z over the list: one tool alike among four unlike', async () => {
  const tools: ToolInfo[] = ['alpha', 'beta', 'beta', 'beta', 'beta'].map((word, i) => ({
    toolKey: `s:t${i}`,
    toolName: `${word} tool`,
    serverName: 's',
  }));
  const index = new SemanticIndex(new DiskVectors(embedder, `${dir}/`));
  const ranker = semanticRanker(index);
  await ranker.prepare!({ name: 'd', tools, queries: [], totalQueries: 0 });
  // Similarities 1, 0, 0, 0, 0: mean 0.2, spread 0.4, so the alike tool stands at z 2 and the others at -0.5.
  const found = await ranker.rank({ id: 'q', query: ['alpha'], relevant: ['s:t0'] }, tools);
  expect(found.ranked[0]).toBe('s:t0');
  expect(found.extras!['gold z']).toBeCloseTo(2, 6);
  const missed = await ranker.rank({ id: 'q', query: ['alpha'], relevant: ['s:t1', 's:t2'] }, tools);
  expect(missed.extras!['gold z']).toBeCloseTo(-0.5, 6);
});
