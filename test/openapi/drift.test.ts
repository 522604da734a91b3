import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generateOpenApiYaml } from '../../scripts/openapi-document.js';

const committedPath = new URL('../../openapi.yaml', import.meta.url);

describe('openapi.yaml', () => {
  it('is exactly what the routes generate (run `npm run openapi` and commit the file when this fails)', async () => {
    const [committed, generated] = await Promise.all([readFile(committedPath, 'utf8'), generateOpenApiYaml()]);
    expect(generated, 'openapi.yaml is stale: run `npm run openapi` and commit it').toBe(committed);
  });

  it('is generated the same way every time', async () => {
    const [first, second] = [await generateOpenApiYaml(), await generateOpenApiYaml()];
    expect(second).toBe(first);
  });
});
