import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { countTextTokens } from '../../src/rerank/token-count.js';

describe('countTextTokens', () => {
  it('is the exact o200k count for text without long runs of one character class', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('calendar', 'list_events', ' ', '\n', 'über', '42', '.', ', ', '漢字'), {
          maxLength: 200,
        }),
        (parts) => {
          const text = parts.join('');
          expect(countTextTokens(text)).toBe(countTokens(text));
        },
      ),
    );
  });

  it('counts a long run within a token per 256 characters of the exact count', () => {
    const text = `list ${'a'.repeat(2_000)} events`;
    const exact = countTokens(text);
    expect(countTextTokens(text)).toBeGreaterThanOrEqual(exact);
    expect(countTextTokens(text)).toBeLessThanOrEqual(exact + Math.ceil(2_000 / 256));
  });

  it('takes linear time on runs without spaces (hang detection: 100,000 newlines took 7.6 s before)', () => {
    for (const text of ['\n'.repeat(1e5), 'a'.repeat(1e5), '!'.repeat(1e5), ' '.repeat(1e5), 'é'.repeat(1e5)]) {
      const started = performance.now();
      expect(countTextTokens(text)).toBeGreaterThan(0);
      expect(performance.now() - started).toBeLessThan(1_000);
    }
  });
});

describe('the tokenizer is loaded only where an LLM is configured', () => {
  it('importing the app does not load o200k (1.8 s and tens of MB at start); creating a reranker does', () => {
    const script = `
      import { createRequire } from 'node:module';
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('gpt-tokenizer'));
      await import('./src/app.ts');
      const atStart = loaded();
      const { rerankerFromConfig } = await import('./src/rerank/from-config.ts');
      rerankerFromConfig({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm', promptTokenBudget: 7000, cacheTtlMs: 0, cacheEntriesPerProject: 1 });
      console.log(JSON.stringify({ atStart, withLlm: loaded() }));`;
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout.trim().split('\n').at(-1)!)).toEqual({ atStart: false, withLlm: true });
    // An ES import would not show in require's cache: no source imports the tokenizer statically.
    const src = fileURLToPath(new URL('../../src', import.meta.url));
    for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'))) {
      expect(readFileSync(`${src}/${file}`, 'utf8'), file).not.toMatch(/(?:from|import\()\s*'gpt-tokenizer/);
    }
  }, 60_000);
});
