// `npm run eval -- --html FILE` opened in Chromium: a small real run (20 requests of one set, words only)
// draws its NDCG@10 bars with intervals and the calibration's distributions; the writer given a run with
// the first-search/warm rankers and learning from use draws those sections too.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeHtmlReport } from '../../eval/html-report.js';
import { launchChromium } from './chromium.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'eval-report-'));
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;

beforeAll(async () => {
  chromium = await launchChromium();
  page = await chromium.browser.newPage();
  await page.setViewport({ width: 1100, height: 900 });
});
afterAll(async () => {
  await chromium?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Each bar's label, the width of its fill and of its whisker (0 without one), in pixels. */
const bars = (scope: string) =>
  page.$$eval(`${scope} .row`, (rows) =>
    rows.map((row) => ({
      label: row.querySelector('.label')!.textContent,
      value: row.querySelector('.value')!.textContent,
      fill: (row.querySelector('.fill') as HTMLElement).offsetWidth,
      whisker: (row.querySelector('.whisker') as HTMLElement | null)?.offsetWidth ?? 0,
    })),
  );

describe('the eval HTML report in Chromium', () => {
  it('a real run (npm run eval -- --max 20 --only mcptoolbench_pp --no-semantic --html): bars with intervals, calibration', async () => {
    const file = join(dir, 'small.html');
    await promisify(execFile)(
      'npm',
      ['run', '-s', 'eval', '--', '--max', '20', '--only', 'mcptoolbench_pp', '--no-semantic', '--html', file],
      { cwd: root, maxBuffer: 16 * 1024 * 1024 },
    );
    await page.goto(pathToFileURL(file).href);
    expect(await page.title()).toBe('catalog-search eval');
    const ndcg = await bars('.set');
    expect(ndcg.map((row) => row.label)).toEqual(['bm25', 'ours']);
    for (const row of ndcg) {
      expect(row.fill).toBeGreaterThan(0); // NDCG@10 above 0 on the set's own requests
      expect(row.whisker).toBeGreaterThan(0); // and its interval drawn
      expect(row.value).toMatch(/^0\.\d{3} \[0\.\d{3}, [01]\.\d{3}\]$/);
    }
    expect(await page.$('.set .changes')).toBeNull(); // two rankers: no change against ours to show
    // Calibration: own requests high, near miss and no fit lower.
    const distributions = await page.$$eval('.distribution h3', (nodes) => nodes.map((node) => node.textContent));
    expect(distributions.some((label) => /near-miss|NEAR-MISS|near miss/i.test(label ?? ''))).toBe(true);
    expect(await page.$$eval('.distribution .row', (rows) => rows.length)).toBeGreaterThan(4);
  }, 120_000);

  it('the first search vs warm and learning before/after, when the run measured them', async () => {
    const file = join(dir, 'fixture.html');
    const ours = [0.2, 0.5, 0.6, 0.4, 0.9, 0.3];
    const fused = [0.4, 0.6, 0.7, 0.5, 0.9, 0.6];
    writeHtmlReport(file, {
      results: [
        {
          dataset: 'fixture_set',
          queries: 6,
          totalQueries: 6,
          tools: 10,
          byRanker: { bm25: { 'NDCG@10': 0.4 }, ours: { 'NDCG@10': 0.483 }, fused: { 'NDCG@10': 0.617 } },
        },
      ],
      ndcgByQuery: new Map([['fixture_set', { bm25: [0.2, 0.4, 0.5, 0.3, 0.8, 0.2], ours, fused }]]),
      learning: [
        {
          dataset: 'fixture_set',
          trainRequests: 3,
          testRequests: 3,
          before: 0.5,
          byCondition: { clean: { after: 0.75, change: 0.25, low: 0.1, high: 0.4, forgotten: true } },
        },
      ],
    });
    await page.goto(pathToFileURL(file).href);
    const ndcg = await bars('.set');
    // Widths follow the values: fused > ours > bm25.
    expect(ndcg.map((row) => row.label)).toEqual(['bm25', 'ours', 'fused']);
    expect(ndcg[2]!.fill).toBeGreaterThan(ndcg[1]!.fill);
    expect(ndcg[1]!.fill).toBeGreaterThan(ndcg[0]!.fill);
    expect(await page.$eval('.set .changes', (node) => node.textContent)).toMatch(/^fused vs ours: \+0\.133 \[/);
    expect(await page.$eval('table', (node) => (node as HTMLElement).innerText)).toMatch(
      /fixture_set\t0\.483\t0\.617\t\+0\.133/,
    );
    const learning = await bars('.pair');
    expect(learning.map((row) => [row.label, row.value])).toEqual([
      ['before', '0.500'],
      ['after', '0.750'],
    ]);
    expect(learning[1]!.fill).toBeGreaterThan(learning[0]!.fill);
    expect(await page.$eval('.pair', (node) => node.textContent)).toContain('change +0.250 [+0.100, +0.400], better');
  });
});
