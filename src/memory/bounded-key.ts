import { createHash } from 'node:crypto';

/** Keys up to this many characters are used as they are; longer ones are hashed. */
const MAX_PLAIN_KEY_CHARS = 128;

/**
 * A cache key of bounded size for any text: short text as it is, longer text as its SHA-256
 * (base64url, 44 characters with a marker that no short key can start with). A key must never hold
 * untruncated tool text: a 180 KB description would make every entry's key 360 KB. Hashing is linear
 * in the text and cheap next to what such caches spare (sanitising, tokenizing); collisions are out of
 * reach, and every cache is per project, so a crafted one could only mislead its own project.
 */
export function boundedKey(text: string): string {
  if (text.length <= MAX_PLAIN_KEY_CHARS && text.charCodeAt(0) !== 0x23) return text;
  return `#${createHash('sha256').update(text).digest('base64url')}`;
}
