// /playground in a real headless Chromium against the real service (`npm start`'s server.ts in
// development mode, on a free loopback port): the sample list searched with the keyboard alone, each
// result's explanation shown, the answer with and without learning side by side, and a screenshot that
// is not blank. PLAYGROUND_SCREENSHOT=docs/playground.png also writes the screenshot there (the docs' image).
import { readFileSync, writeFileSync } from 'node:fs';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServiceProcess, stopAllServiceProcesses, type ServiceProcess } from '../helpers/service-process.js';
import { launchChromium, pngSummary } from './chromium.js';

const sample = JSON.parse(readFileSync(new URL('../../examples/search-request.json', import.meta.url), 'utf8')) as {
  query: string[];
  tools: Array<{ toolKey: string }>;
};
/** The tool the reports below teach for the sample's requests (not its first result without learning). */
const TAUGHT = 'gcal:find_free_time';

let service: ServiceProcess;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;
/** The development token `npm start` printed (the page fills in one for the same project). */
let token: string;

beforeAll(async () => {
  service = await startServiceProcess({
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_ENV: 'development',
  });
  // Printed just after it listens.
  token = await vi.waitFor(() => /^TOKEN=(\S+)$/m.exec(service.output())![1]!, { timeout: 30_000, interval: 100 });
  chromium = await launchChromium();
  page = await chromium.browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
});
afterAll(async () => {
  await chromium?.close();
  await stopAllServiceProcesses();
});

/** Searches the sample as a router would, then reports that TAUGHT served each search. */
async function teach(times: number): Promise<void> {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  for (let i = 0; i < times; i++) {
    const search = await fetch(`${service.url}/v1/catalog/search`, {
      method: 'POST',
      headers,
      body: JSON.stringify(sample),
    });
    expect(search.status).toBe(200);
    const { meta } = (await search.json()) as { meta: { requestId: string } };
    const report = await fetch(`${service.url}/v1/catalog/feedback`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ events: [{ requestId: meta.requestId, toolKey: TAUGHT, outcome: 'succeeded' }] }),
    });
    expect(report.status).toBe(202);
  }
}

/** Tab until `selector` has the focus (at most `limit` presses); fails if it never does. */
async function tabTo(selector: string, limit = 10): Promise<void> {
  for (let presses = 0; presses < limit; presses++) {
    if (await page.$eval(selector, (node) => node === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

const columnText = (id: string) => page.$eval(`#${id}`, (node) => (node as HTMLElement).innerText);

describe('/playground in Chromium', () => {
  it('keyboard only: the sample list and its requests, searched; explanations shown; learning on and off side by side', async () => {
    await teach(4);
    const response = await page.goto(`${service.url}/playground`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    // Development server, browser on loopback: the token is filled in.
    expect(await page.$eval('#token', (node) => (node as HTMLInputElement).value)).toMatch(/^ey/);

    // Tab and Enter only: "Use the sample list", then the Search button.
    await tabTo('#use-sample');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => (document.getElementById('tools') as HTMLTextAreaElement).value.length > 0);
    expect(await page.$eval('#queries', (node) => (node as HTMLTextAreaElement).value)).toBe(sample.query.join('\n'));
    await tabTo('#search');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#learned .result');
    await page.waitForSelector('#unlearned .result');
    expect(await page.$eval('#error', (node) => (node as HTMLElement).hidden)).toBe(true);

    // Results with relevance bars and explanations, visible.
    const first = await page.$('#unlearned .result .explanation');
    expect(await first!.isVisible()).toBe(true);
    expect(await first!.evaluate((node) => node.textContent)).toMatch(/^query \d: matched /);
    const bar = await page.$eval('#unlearned .result .bar span', (node) => (node as HTMLElement).offsetWidth);
    expect(bar).toBeGreaterThan(0);
    expect(await page.$eval('#results', (node) => node.getAttribute('aria-live'))).toBe('polite');

    // Side by side: the learned answer raised the taught tool (its explanation says so, meta.learning
    // "raised"); the answer without learning has neither.
    const meta = (id: string) =>
      page.$$eval(`#${id} .meta .entry`, (nodes) => nodes.map((node) => (node as HTMLElement).innerText));
    expect(await meta('learned')).toEqual(
      expect.arrayContaining(['ranker bm25', 'semantic off', 'learning raised', 'skipped 0']),
    );
    expect(await meta('unlearned')).toContain('learning none');
    expect(await columnText('learned')).toContain('raised by past use');
    expect(await columnText('unlearned')).not.toContain('raised by past use');
    const order = (id: string) =>
      page.$$eval(`#${id} .result .key`, (nodes) => nodes.map((node) => node.textContent ?? ''));
    const [withLearning, without] = [await order('learned'), await order('unlearned')];
    expect(withLearning.indexOf(TAUGHT)).toBeLessThan(
      without.indexOf(TAUGHT) === -1 ? Infinity : without.indexOf(TAUGHT),
    );
  });

  it('a screenshot of the answer: results rendered with a size, the image neither blank nor uniform', async () => {
    const box = await (await page.$('#results'))!.boundingBox();
    expect(box!.width).toBeGreaterThan(600);
    expect(box!.height).toBeGreaterThan(200);
    const png = await page.screenshot({ type: 'png', fullPage: false });
    const summary = pngSummary(png);
    expect({ width: summary.width, height: summary.height }).toEqual({ width: 1280, height: 900 });
    // A blank page decodes to a handful of byte values; the rendered page to well over a hundred.
    expect(summary.distinctBytes).toBeGreaterThan(64);
    if (process.env.PLAYGROUND_SCREENSHOT) {
      await page.evaluate(() => document.getElementById('results')!.scrollIntoView({ block: 'start' }));
      writeFileSync(process.env.PLAYGROUND_SCREENSHOT, await page.screenshot({ type: 'png' }));
    }
  });

  it('an error is said in the page (role alert), not thrown: a list that is not JSON', async () => {
    await page.$eval('#tools', (node) => ((node as HTMLTextAreaElement).value = '{ not json'));
    await page.click('#search');
    await page.waitForFunction(() => !(document.getElementById('error') as HTMLElement).hidden);
    expect(await page.$eval('#error', (node) => node.getAttribute('role'))).toBe('alert');
    expect(await page.$eval('#error', (node) => node.textContent)).toMatch(/^The tool list is not JSON/);
  });
});
