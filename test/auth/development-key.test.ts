import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEVELOPMENT_KEY_FILE, developmentKey } from '../../src/auth/development-key.js';

// The development server's key survives a restart (the tokens it printed keep working); a junk or
// unwritable file never stops it from starting.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'dev-key-'));
  dirs.push(dir);
  return dir;
};

describe('developmentKey', () => {
  it('makes a 32-byte key on first use, owner-only, and returns the same one after', () => {
    const dir = scratch();
    const first = developmentKey(dir);
    const file = join(dir, DEVELOPMENT_KEY_FILE);
    expect(first).toEqual({ secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), file });
    expect(readFileSync(file, 'utf8').trim()).toBe(first.secret);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(developmentKey(dir)).toEqual(first);
  });

  it('replaces a file that holds no key', () => {
    const dir = scratch();
    writeFileSync(join(dir, DEVELOPMENT_KEY_FILE), 'REPLACE_ME\n');
    const made = developmentKey(dir);
    expect(made.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(developmentKey(dir)).toEqual(made);
  });

  it('where the file cannot be written (the root is not a directory), a key for this process only', () => {
    const notADirectory = join(scratch(), 'file');
    writeFileSync(notADirectory, '');
    const made = developmentKey(notADirectory);
    expect(made.file).toBeUndefined();
    expect(made.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
