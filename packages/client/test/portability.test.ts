import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The client runs in Electron's renderer and in browsers: nothing in its sources may need Node.
const srcDir = new URL('../src/', import.meta.url);
const sources = readdirSync(srcDir).filter((name) => name.endsWith('.ts'));

describe('client sources are runtime-neutral', () => {
  it.each(sources)('%s imports only core, typebox and its own modules, and uses no Node globals', (name) => {
    const text = readFileSync(new URL(name, srcDir), 'utf8');
    const imports = [...text.matchAll(/from\s+'([^']+)'/g)].map((match) => match[1]!);
    for (const specifier of imports) {
      expect(specifier).toMatch(/^(\.\/|@catalog-search\/core$|@sinclair\/typebox(\/value)?$)/);
    }
    expect(text).not.toMatch(/\b(process|Buffer|require|__dirname)\b[.(]/);
  });
});

describe('the published package', () => {
  it('declares every dependency of the core it bundles, with the same ranges', () => {
    const read = (path: string) =>
      JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { dependencies?: Record<string, string> };
    const client = read('../package.json').dependencies ?? {};
    const core = read('../../core/package.json').dependencies ?? {};
    for (const [name, range] of Object.entries(core)) expect(client[name], name).toBe(range);
    expect(client['@catalog-search/core']).toBeUndefined();
  });
});
