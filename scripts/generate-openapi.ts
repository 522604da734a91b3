// Writes openapi.yaml from the routes' schemas (`npm run openapi`). CI fails when the committed
// file differs from what the code produces (test/openapi/drift.test.ts).
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { generateOpenApiYaml } from './openapi-document.js';

const target = fileURLToPath(new URL('../openapi.yaml', import.meta.url));
await writeFile(target, await generateOpenApiYaml());
process.stdout.write(`wrote ${target}\n`);
