// Writes docs/configuration.md's variable tables and .env.example's variables from the table in
// src/config/variables.ts (`npm run config:docs`). CI fails when the committed files differ from
// what the table renders (test/config/variables.test.ts).
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import {
  DOCS_MARKERS,
  ENV_MARKERS,
  renderDocsTables,
  renderEnvExample,
  replaceBetweenMarkers,
} from './config-reference.js';

const targets = [
  {
    path: fileURLToPath(new URL('../docs/configuration.md', import.meta.url)),
    markers: DOCS_MARKERS,
    render: renderDocsTables,
  },
  { path: fileURLToPath(new URL('../.env.example', import.meta.url)), markers: ENV_MARKERS, render: renderEnvExample },
];
for (const { path, markers, render } of targets) {
  await writeFile(path, replaceBetweenMarkers(await readFile(path, 'utf8'), markers, render()));
  process.stdout.write(`wrote ${path}\n`);
}
