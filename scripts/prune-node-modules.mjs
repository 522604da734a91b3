// Removes from an installed node_modules what Node never loads at run time: TypeScript sources and
// declarations, source maps and Markdown docs. Licence files and package.json files stay. Used by the Dockerfile.
// Usage: node scripts/prune-node-modules.mjs DIR
import { lstatSync, readdirSync, rmSync } from 'node:fs';
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

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node scripts/prune-node-modules.mjs DIR');
  process.exit(2);
}
const { files, bytes } = prune(dir);
console.log(`pruned ${files} files (${(bytes / 1e6).toFixed(1)} MB) from ${dir}`);
