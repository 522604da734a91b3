// Builds the publishable client into dist/ (run by `npm pack` through `prepack`): one ES module with
// the shared core and TypeBox bundled in, and declarations with core's vendored beside them, so the tarball
// installs on its own from the public registry. No source maps (they would point at sources the
// tarball does not ship) and no build info.
import { execFileSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

// esbuild and TypeScript are the repository's development dependencies, installed by `npm ci` at its
// root (the client's own folder has no lockfile). The one command from a fresh clone, at the root:
//   npm ci && npm run pack:client
const { build } = await import('esbuild').catch((error) => {
  console.error(
    `Cannot load esbuild (${error.code ?? error.message}): run \`npm ci\` at the repository root first, then \`npm run pack:client\` there.`,
  );
  process.exit(1);
});

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const dist = join(root, 'dist');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

rmSync(dist, { recursive: true, force: true });
// Core's languages, one folder each (packages/core/src/languages/<code>/): each becomes an entry a
// router imports to have that language in its fallback, `@catalog-search/client/languages/<code>`.
const languagesDir = join(root, '../core/src/languages');
const languages = readdirSync(languagesDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
const clientIndex = join(root, 'src/index.ts');
await build({
  entryPoints: [
    { in: clientIndex, out: 'index' },
    ...languages.map((code) => ({ in: `language:${code}`, out: `languages/${code}` })),
  ],
  outdir: dist,
  // Code splitting: what the entries share (core, the client) is one chunk loaded once, and each
  // language's dictionary is a chunk of its own, loaded by its dynamic import only when a router asks for
  // the language. Without it, esbuild would inline the dictionaries into the bundle every router loads.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  alias: { '@catalog-search/core': join(root, '../core/src/index.ts') },
  plugins: [
    {
      // `language:ja`: the entry that loads Japanese into the client's core (the same chunk as index.js).
      name: 'language-entries',
      setup(builder) {
        builder.onResolve({ filter: /^language:/ }, (args) => ({ path: args.path, namespace: 'language' }));
        builder.onLoad({ filter: /.*/, namespace: 'language' }, (args) => ({
          contents: `import { loadLanguages } from ${JSON.stringify(clientIndex)};\nawait loadLanguages([${JSON.stringify(args.path.slice('language:'.length))}]);\n`,
          loader: 'js',
          resolveDir: root,
        }));
      },
    },
  ],
  // The client's own dependencies (core's, declared again in the client's package.json) stay imports,
  // but for TypeBox: its ES build is 266 modules, and loading them was most of importing the client in
  // a new process (246–260 ms; 62–72 ms bundled: `npm run bench -- client`). It stays a dependency: the
  // declarations name its types.
  external: Object.keys(pkg.dependencies ?? {})
    .filter((name) => name !== '@sinclair/typebox')
    .flatMap((name) => [name, `${name}/*`]),
  sourcemap: false,
  legalComments: 'none',
  // The dictionaries are Japanese and Chinese text: as UTF-8 they are half the size of \u escapes.
  charset: 'utf8',
});

const tsc = join(root, '../../node_modules/typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.package.json')], { stdio: 'inherit' });

// The client's declarations import '@catalog-search/core': point them at the vendored copy.
const clientTypes = join(dist, 'types/client/src');
const coreIndex = join(dist, 'types/core/src/index.js');
for (const name of readdirSync(clientTypes)) {
  const file = join(clientTypes, name);
  const specifier = `./${relative(clientTypes, coreIndex).split('\\').join('/')}`.replace(/^\.\/\.\./, '..');
  writeFileSync(file, readFileSync(file, 'utf8').replaceAll("'@catalog-search/core'", `'${specifier}'`));
}
writeFileSync(join(dist, 'index.d.ts'), "export * from './types/client/src/index.js';\n");
for (const code of languages) {
  // A side-effect import: nothing to declare.
  writeFileSync(join(dist, `languages/${code}.d.ts`), 'export {};\n');
  // The dictionaries are derived from open sources whose licences (CC BY-SA) ask for the licence and
  // attribution to travel with them.
  for (const name of readdirSync(join(languagesDir, code)).filter((file) => file.endsWith('.LICENSE.md')))
    copyFileSync(join(languagesDir, code, name), join(dist, 'languages', name));
}
// The project's licence and notice travel in the tarball too (npm packs them from the package's own
// folder; the copies are git-ignored, the root's are the ones to edit).
for (const name of ['LICENSE', 'NOTICE']) copyFileSync(join(root, '../..', name), join(root, name));
