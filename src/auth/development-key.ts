// The development server's HS256 key (no AUTH_* key set, outside production), kept between restarts
// in a git-ignored file at the repository root: the tokens it printed, and those `npm run mint-token`
// signs with the same file, keep working after a restart (a fresh key per process silently broke them).
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The file's name; scripts/mint-token.mjs reads the same file. */
export const DEVELOPMENT_KEY_FILE = '.dev-jwt-secret';

/** 32 random bytes, base64url: what the file holds. */
const KEY_PATTERN = /^[A-Za-z0-9_-]{43,}$/;

interface DevelopmentKey {
  secret: string;
  /** Where it is kept; undefined when the file could not be written (the key then lasts one process). */
  file: string | undefined;
}

/** The key kept at the repository root, made (and kept) on first use. Never throws. */
export function developmentKey(root = repositoryRoot()): DevelopmentKey {
  const file = join(root, DEVELOPMENT_KEY_FILE);
  const kept = readKey(file);
  if (kept !== undefined) return { secret: kept, file };
  const secret = randomBytes(32).toString('base64url');
  try {
    // Owner-only: it signs tokens. `wx` unless the file is there with something else in it.
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: existsSync(file) ? 'w' : 'wx' });
    return { secret, file };
  } catch {
    // Another process made it first (use theirs), or the checkout is read-only (a key for this process only).
    const theirs = readKey(file);
    return theirs === undefined ? { secret, file: undefined } : { secret: theirs, file };
  }
}

function readKey(file: string): string | undefined {
  try {
    const text = readFileSync(file, 'utf8').trim();
    return KEY_PATTERN.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

/** From src/ (tsx) or dist/src/ (npm start) up to the directory with the package manifest. */
function repositoryRoot(): string {
  const candidates = ['../..', '../../..'].map((up) => fileURLToPath(new URL(`${up}/`, import.meta.url)));
  return candidates.find((dir) => existsSync(join(dir, 'package.json'))) ?? process.cwd();
}
