// The calibration report's no-fit set holds only pairs read by hand as no-fit (issue 24): a pair the
// automatic check keeps but nobody read, or read as fitting, is left out and counted.
import { existsSync } from 'node:fs';
import type { ToolInfo } from '@catalog-search/core';
import { describe, expect, it } from 'vitest';
import { checkedNoFit } from '../../eval/calibration.js';
import { BENCH_DIR, loadDatasets, type Dataset } from '../../eval/datasets.js';

const tool = (toolKey: string, description: string): ToolInfo => ({
  toolKey,
  toolName: toolKey.split(':')[1]!,
  serverName: toolKey.split(':')[0]!,
  description,
});

function dataset(name: string, tools: ToolInfo[], queries: Dataset['queries'] = []): Dataset {
  return { name, tools, queries, totalQueries: queries.length };
}

describe('no-fit set', () => {
  // A request id the reading has (judged no-fit) and one it has not, against a catalog with nothing alike.
  const read = '99d7541a-73c0-4ea1-8002-a70a041f3ffc';
  const source = dataset(
    'livemcpbench',
    [tool('music-analysis:beat_track', 'Track the beats of an audio file.')],
    [
      { id: read, query: ['analyse the beats of this song'], relevant: ['music-analysis:beat_track'] },
      { id: 'never-read', query: ['analyse the tempo of this song'], relevant: ['music-analysis:beat_track'] },
    ],
  );
  const target = dataset('toolret_toolink', [tool('toolink:add', 'Adds two integers and returns the sum.')]);

  it('keeps a pair read as no-fit and leaves out one nobody read', () => {
    const set = checkedNoFit(
      new Map([
        [source.name, source],
        [target.name, target],
      ]),
    );
    expect(set.pairs.map((pair) => pair.id)).toEqual([read]);
    expect(set.unread).toBe(1);
    expect(set.readFits).toBe(0);
  });

  it('leaves out a pair whose gold tool has a counterpart in the catalog, read or not', () => {
    const twin = dataset('toolret_toolink', [tool('other:beat_track', 'Track the beats of an audio file.')]);
    const set = checkedNoFit(
      new Map([
        [source.name, source],
        [twin.name, twin],
      ]),
    );
    expect(set.pairs).toEqual([]);
    expect(set.dropped).toBe(2);
  });

  it.skipIf(!existsSync(BENCH_DIR))('on the bench: at least 50 pairs, every kept pair read', () => {
    const set = checkedNoFit(new Map(loadDatasets({ maxQueries: 100 }).map((d) => [d.name, d])));
    expect(set.pairs.length).toBeGreaterThanOrEqual(50);
    expect(set.unread).toBe(0);
  });
});
