// The house's size limits (issue #50): a newcomer finds src/ by its folders, reads app.ts's parts at a
// glance and each route module in one sitting. Functions are held to 80 lines by ESLint.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const src = new URL('../../src/', import.meta.url);
const lines = (path: URL) => readFileSync(path, 'utf8').trimEnd().split('\n').length;

describe('the house stays walkable', () => {
  it('src/ holds at most four files at its root', () => {
    const files = readdirSync(src, { withFileTypes: true }).filter((entry) => entry.isFile());
    expect(files.map((file) => file.name).length).toBeLessThanOrEqual(4);
  });

  it('app.ts imports at most 12 local modules', () => {
    const local = readFileSync(new URL('app.ts', src), 'utf8').match(/^import .* from '\.{1,2}\//gm) ?? [];
    expect(local.length).toBeGreaterThan(0);
    expect(local.length).toBeLessThanOrEqual(12);
  });

  it('every routes/*.ts module has at most 100 lines', () => {
    const routes = readdirSync(new URL('routes/', src)).filter((name) => name.endsWith('.ts'));
    expect(routes.length).toBeGreaterThan(2);
    const over = routes.filter((name) => lines(new URL(`routes/${name}`, src)) > 100);
    expect(over).toEqual([]);
  });
});
