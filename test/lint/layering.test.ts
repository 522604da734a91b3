// `npm run lint:layers` runs dependency-cruiser with .dependency-cruiser.cjs over src/ and packages/*/src.
// These tests run the same rules through dependency-cruiser's API: on a small tree laid out like the repo
// with planted violations (each must be reported under its rule), on the same tree without them (nothing),
// and on the real tree (nothing), so a rule that no longer matches anything cannot pass unnoticed.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const TREES = ['src', 'packages/core/src', 'packages/client/src'];

/**
 * The errors `npm run lint:layers` would print for the trees under `baseDir`, as `rule: from -> to`, and how
 * many imports it followed (a cruise that resolved none would report nothing, whatever the rules).
 */
async function layerCheck(baseDir: string): Promise<{ violations: string[]; dependencies: number }> {
  const options = await extractDepcruiseOptions(join(root, '.dependency-cruiser.cjs'));
  const tsConfigFile = join(baseDir, 'tsconfig.json');
  const reported = await cruise(
    TREES.filter((tree) => existsSync(join(baseDir, tree))),
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

/** A tree laid out like the repository, compiled with the project's compiler settings. */
function fixtureTree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'layers-'));
  made.push(dir);
  const tsconfig = { extends: join(root, 'tsconfig.base.json'), include: TREES.map((tree) => `${tree}/**/*.ts`) };
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

/** A module exporting `name` that imports each of `imports` (paths relative to it). */
const module = (name: string, ...imports: string[]): string =>
  imports.map((path, index) => `import { value as v${index} } from '${path}';\n`).join('') +
  `export const ${name} = (): string => [${imports.map((_, index) => `v${index}`).join(', ')}].join();\n` +
  'export const value = 1;\n';

/** Imports that follow the layers: downward, the composition root's types only, the one named exception. */
const allowed: Record<string, string> = {
  'src/app.ts': module('buildApp', './routes/search.js', './plugins/auth.js'),
  'src/services.ts': 'export interface Services {\n  name: string;\n}\nexport const value = 1;\n',
  'src/config/index.ts': module('parse'),
  'src/http/errors.ts': module('problem'),
  'src/redis/store.ts': module('store', '../config/index.js'),
  'src/auth/project.ts': module('project', '../http/errors.js'),
  'src/schemas/search.ts': module('schema', '../http/errors.js'),
  'src/lexical/stage.ts': module('lexical', '../redis/store.js'),
  'src/rerank/stage.ts': module('rerank', '../schemas/search.js'),
  'src/search/pipeline.ts': module('run', '../lexical/stage.js', '../rerank/stage.js'),
  'src/plugins/auth.ts': module('auth', '../auth/project.js'),
  'src/routes/search.ts':
    module('route', '../search/pipeline.js') +
    "import type { Services } from '../services.js';\nexport type Route = Services;\n",
  'packages/core/src/schemas.ts': module('toolInfo'),
  'packages/core/src/text/text-length.ts': module('codePoints'),
  'packages/core/src/text/tokenize.ts': module('tokenize', '../everyday/readings.js'),
  'packages/core/src/everyday/readings.ts': module('readings', '../schemas.js'),
  'packages/core/src/ranking/rank.ts': module('rank', '../text/text-length.js', '../text/tokenize.js'),
  'packages/core/src/request/relevance-adjustments.ts': module('adjust', '../ranking/rank.js'),
  'packages/core/src/index.ts': module('core', './request/relevance-adjustments.js'),
  'packages/client/src/client.ts': module('client'),
};

/** Each planted import, the file it is planted in, and what `npm run lint:layers` must report. */
const planted: Array<{ case: string; files: Record<string, string>; reported: string[] }> = [
  {
    case: 'a wire schema running the search (schemas/ -> search/)',
    files: { 'src/schemas/planted.ts': module('planted', '../search/pipeline.js') },
    reported: ['layer-upward: src/schemas/planted.ts -> src/search/pipeline.ts'],
  },
  {
    case: 'auth reaching for a plugin (auth/ -> plugins/)',
    files: { 'src/auth/planted.ts': module('planted', '../plugins/auth.js') },
    reported: ['layer-upward: src/auth/planted.ts -> src/plugins/auth.ts'],
  },
  {
    case: 'the problem+json errors importing a route (http/errors.ts -> routes/)',
    files: { 'src/http/errors.ts': module('problem', '../routes/search.js') },
    reported: ['layer-upward: src/http/errors.ts -> src/routes/search.ts'],
  },
  {
    case: 'one stage importing another (lexical/ -> rerank/)',
    files: { 'src/lexical/planted.ts': module('planted', '../rerank/stage.js') },
    reported: ['layer-sideways: src/lexical/planted.ts -> src/rerank/stage.ts'],
  },
  {
    case: 'control: a Redis adapter running the composition root, memory/ importing the search',
    files: {
      'src/redis/planted.ts': module('planted', '../app.js'),
      'src/memory/planted.ts': module('planted', '../search/pipeline.js'),
    },
    reported: [
      'layer-root: src/redis/planted.ts -> src/app.ts',
      'layer-upward: src/memory/planted.ts -> src/search/pipeline.ts',
    ],
  },
  {
    case: 'a folder and a root file on no layer',
    files: {
      'src/util/planted.ts': module('planted', '../config/index.js'),
      'src/helpers.ts': module('helper'),
      'src/config/planted.ts': module('planted', '../helpers.js'),
    },
    reported: [
      'layer-unplaced: src/config/planted.ts -> src/helpers.ts',
      'layer-unplaced: src/util/planted.ts -> src/config/index.ts',
    ],
  },
  {
    case: "core's folder loop (ranking/ -> request/), and text/ -> everyday/ outside the named file",
    files: {
      'packages/core/src/ranking/planted.ts': module('planted', '../request/relevance-adjustments.js'),
      'packages/core/src/text/planted.ts': module('planted', '../everyday/readings.js'),
    },
    reported: [
      'core-upward: packages/core/src/ranking/planted.ts -> packages/core/src/request/relevance-adjustments.ts',
      'core-upward: packages/core/src/text/planted.ts -> packages/core/src/everyday/readings.ts',
    ],
  },
  {
    case: 'core importing the client, the client or the service reaching into core by a path',
    files: {
      'packages/core/src/request/planted.ts': module('planted', '../../../client/src/client.js'),
      'packages/client/src/planted.ts': module('planted', '../../core/src/schemas.js'),
      'src/search/planted.ts': module('planted', '../../packages/core/src/schemas.js'),
    },
    reported: [
      'packages-client: packages/client/src/planted.ts -> packages/core/src/schemas.ts',
      'packages-core: packages/core/src/request/planted.ts -> packages/client/src/client.ts',
      'packages-service: src/search/planted.ts -> packages/core/src/schemas.ts',
    ],
  },
];

describe('the layering rule (npm run lint:layers)', () => {
  it.each(planted)('reports $case', async ({ files, reported }) => {
    expect((await layerCheck(fixtureTree({ ...allowed, ...files }))).violations).toEqual(reported);
  });

  it('reports nothing for the same tree without them (downward imports, the root named for its types)', async () => {
    expect(await layerCheck(fixtureTree(allowed))).toEqual({ violations: [], dependencies: 18 });
  });

  it('passes on the real src/ and packages/*/src', async () => {
    const { violations, dependencies } = await layerCheck(root);
    expect(violations).toEqual([]);
    expect(dependencies).toBeGreaterThan(600);
  }, 120_000); // the whole repository: seconds, more on a busy machine
});
