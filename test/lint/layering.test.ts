// `npm run lint:layers` runs dependency-cruiser with .dependency-cruiser.cjs over src/. These tests run
// the same rules through dependency-cruiser's API: on a small tree laid out like src/ with planted
// violations (each must be reported under its rule), on the same tree without them (nothing), and on
// the real src/ (nothing), so a rule that no longer matches anything cannot pass unnoticed.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The errors `npm run lint:layers` would print for src/ under `baseDir`, as `rule: from -> to`, and how
 * many imports it followed (a cruise that resolved none would report nothing, whatever the rules).
 */
async function layerCheck(baseDir: string): Promise<{ violations: string[]; dependencies: number }> {
  const options = await extractDepcruiseOptions(join(root, '.dependency-cruiser.cjs'));
  const tsConfigFile = join(baseDir, 'tsconfig.json');
  const reported = await cruise(
    ['src'],
    { ...options, baseDir, tsConfig: { fileName: tsConfigFile } },
    {},
    { tsConfig: extractTSConfig(tsConfigFile) },
  );
  const result = reported.output as ICruiseResult;
  const violations = result.summary.violations
    .filter((violation) => violation.rule.severity === 'error')
    .map((violation) => `${violation.rule.name}: ${violation.from} -> ${violation.to}`)
    .sort();
  return { violations, dependencies: result.summary.totalDependenciesCruised ?? 0 };
}

/** A tree laid out like src/, compiled with the project's compiler settings. */
function fixtureTree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'layers-'));
  made.push(dir);
  const tsconfig = { extends: join(root, 'tsconfig.base.json'), include: ['src/**/*.ts'] };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** Imports that follow the layers: downward, and the composition root's types only. */
const allowed: Record<string, string> = {
  'src/app.ts': "export const buildApp = (): string => 'app';\n",
  'src/services.ts': 'export interface Services {\n  name: string;\n}\n',
  'src/config/parse.ts': "export const parse = (): string => 'config';\n",
  'src/redis/store.ts': "import { parse } from '../config/parse.js';\nexport const store = (): string => parse();\n",
  'src/search/pipeline.ts': "import { store } from '../redis/store.js';\nexport const run = (): string => store();\n",
  'src/routes/search.ts':
    "import { run } from '../search/pipeline.js';\nimport type { Services } from '../services.js';\n" +
    'export const route = (services: Services): string => run() + services.name;\n',
};

describe('the folder layering rule (npm run lint:layers)', () => {
  it('reports a Redis adapter running the composition root, and a lower layer importing a higher one', async () => {
    const dir = fixtureTree({
      ...allowed,
      'src/redis/x.ts': "import { buildApp } from '../app.js';\nexport const x = (): string => buildApp();\n",
      'src/memory/y.ts': "import { run } from '../search/pipeline.js';\nexport const y = (): string => run();\n",
    });
    expect((await layerCheck(dir)).violations).toEqual([
      'layer-config: src/memory/y.ts -> src/search/pipeline.ts',
      'layer-root: src/redis/x.ts -> src/app.ts',
    ]);
  });

  it('reports nothing for the same tree without them (downward imports, the root named for its types)', async () => {
    expect(await layerCheck(fixtureTree(allowed))).toEqual({ violations: [], dependencies: 4 });
  });

  it('passes on the real src/', async () => {
    const { violations, dependencies } = await layerCheck(root);
    expect(violations).toEqual([]);
    expect(dependencies).toBeGreaterThan(300);
  });
});
