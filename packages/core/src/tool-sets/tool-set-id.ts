import type { ToolInfo } from '../schemas.js';

/**
 * Tool-set references (docs/api.md, "Tool-set references"). A tool list the service has seen can be
 * named by its id instead of being resent: the id is the SHA-256 (base64url, 43 characters) of the
 * list's canonical form, so the client, every replica and any later request compute the same id for
 * the same tools in the same order.
 *
 * The canonical form is the JSON of the list with each tool reduced to the fields the search reads
 * or returns, in this fixed order; nested values (inputSchema, annotations, tags) are kept as they
 * are, in their own key order, which a JSON round trip preserves. Unknown tool fields are left out
 * (they change nothing in a search). The id is defined on the flat list, so any request form that
 * reads into the same flat list (a grouped form, for one) gets the same id.
 * Plain JSON.stringify rather than a key-sorting serialiser: the id is computed for every full list, and
 * it is the faster (figures: docs/performance.md#the-tool-set-ids-serialiser).
 */
const TOOL_SET_FIELDS = [
  'toolKey',
  'toolName',
  'serverName',
  'title',
  'description',
  'tags',
  'inputSchema',
  'annotations',
] as const;

/** The canonical JSON of a tool list (what its id hashes, and what a shared store keeps). */
export function canonicalToolSet(tools: readonly ToolInfo[]): string {
  const reduced = new Array<Record<string, unknown>>(tools.length);
  for (let index = 0; index < tools.length; index += 1) {
    const tool = tools[index] as unknown as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const field of TOOL_SET_FIELDS) {
      const value = tool[field];
      if (value !== undefined) out[field] = value;
    }
    reduced[index] = out;
  }
  return JSON.stringify(reduced);
}

/** The id of a canonical form (Web Crypto, so it runs in Node and in browsers alike). */
export async function toolSetIdOf(canonical: string): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(canonical)));
  let binary = '';
  for (const byte of digest) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** The id of a tool list: `toolSetIdOf(canonicalToolSet(tools))`. */
export function toolSetId(tools: readonly ToolInfo[]): Promise<string> {
  return toolSetIdOf(canonicalToolSet(tools));
}
