import type { ToolListSearchRequest, ToolInfo } from '@catalog-search/core';
import { readFileSync } from 'node:fs';

/** The bundled sample request (examples/), which the README's curl also sends. */
export const sampleRequest = JSON.parse(
  readFileSync(new URL('../../examples/search-request.json', import.meta.url), 'utf8'),
) as ToolListSearchRequest;

export const sampleTools: ToolInfo[] = sampleRequest.tools;

/** `count` distinct tools built from the sample list (keys made unique), for limit tests. */
export function manyTools(count: number): ToolInfo[] {
  return Array.from({ length: count }, (_, index) => {
    const base = sampleTools[index % sampleTools.length]!;
    return { ...base, toolKey: `${base.toolKey}#${index}` };
  });
}
