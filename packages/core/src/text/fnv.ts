/**
 * FNV-1a (32-bit), the one hash of core's word tables: the tokenizer hashes each run of letters and
 * digits while it scans (run-table.ts looks the run up by it), and name-key.ts hashes tool names.
 * One multiply per character, so it costs next to nothing inside a scan that reads the characters
 * anyway. Not collision-resistant: every user checks a hash match against the text itself.
 */
export const FNV_OFFSET = 0x811c9dc5 | 0;

/** The hash after one more character code. */
export function fnvStep(hash: number, code: number): number {
  return Math.imul(hash ^ code, 16777619);
}
