// Removes from an installed node_modules what Node never loads at run time: TypeScript sources and
// declarations, source maps and Markdown docs, and the parts of a few large packages the service
// never loads (PACKAGE_TRIMS). Licence files and package.json files stay. Used by the Dockerfile.
// Usage: node scripts/prune-node-modules.mjs DIR
import { existsSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const UNUSED_FILE = /\.(?:[cm]?ts|map|md|markdown)$/i;
const KEEP_FILE = /^(?:licen[cs]e|notice|copying)/i;

function prune(dir) {
  let removed = { files: 0, bytes: 0 };
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = prune(path);
      removed = { files: removed.files + inner.files, bytes: removed.bytes + inner.bytes };
    } else if (entry.isFile() && UNUSED_FILE.test(entry.name) && !KEEP_FILE.test(entry.name)) {
      removed = { files: removed.files + 1, bytes: removed.bytes + lstatSync(path).size };
      rmSync(path);
    }
  }
  return removed;
}

/**
 * Per package, the paths Node never loads in the service. gpt-tokenizer (28.6 MB installed) ships
 * every encoding in CommonJS, ES modules, browser bundles and raw tables; the service `require`s one,
 * `encoding/o200k_base` (src/rerank/token-count.ts): 2.5 MB are kept. The container suite checks
 * that it still loads and counts in the image.
 */
const PACKAGE_TRIMS = {
  'gpt-tokenizer': {
    remove: ['esm', 'dist', 'data', 'src', 'cjs/fixtures', 'cjs/model'],
    keepOnly: { 'cjs/bpeRanks': /^o200k_base\.js$/ },
    removeFiles: /\.test\.js$/,
  },
};

function trimPackages(root) {
  let removed = { files: 0, bytes: 0 };
  const count = (path) => {
    const stat = lstatSync(path);
    if (!stat.isDirectory()) return { files: 1, bytes: stat.size };
    return readdirSync(path)
      .map((name) => count(join(path, name)))
      .reduce((a, b) => ({ files: a.files + b.files, bytes: a.bytes + b.bytes }), { files: 0, bytes: 0 });
  };
  const drop = (path) => {
    const gone = count(path);
    removed = { files: removed.files + gone.files, bytes: removed.bytes + gone.bytes };
    rmSync(path, { recursive: true, force: true });
  };
  const walk = (dir, pattern) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path, pattern);
      else if (pattern.test(entry.name)) drop(path);
    }
  };
  for (const [name, trim] of Object.entries(PACKAGE_TRIMS)) {
    const pkg = join(root, name);
    if (!existsSync(pkg)) continue;
    for (const path of trim.remove) if (existsSync(join(pkg, path))) drop(join(pkg, path));
    for (const [folder, keep] of Object.entries(trim.keepOnly)) {
      if (!existsSync(join(pkg, folder))) continue;
      for (const entry of readdirSync(join(pkg, folder))) if (!keep.test(entry)) drop(join(pkg, folder, entry));
    }
    walk(pkg, trim.removeFiles);
  }
  return removed;
}

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node scripts/prune-node-modules.mjs DIR');
  process.exit(2);
}
const trimmed = trimPackages(dir);
const { files, bytes } = prune(dir);
console.log(`pruned ${files + trimmed.files} files (${((bytes + trimmed.bytes) / 1e6).toFixed(1)} MB) from ${dir}`);
