import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { ToolInfo } from '@catalog-search/core';
import type { AuthKey } from '../config/types.js';

/** Characters of a keyed hash kept (base64url, 96 bits): collisions among millions of terms stay negligible. */
const HASH_CHARS = 16;
/** Characters of a stored key's keyed hash (base64url, 132 bits). */
const STORED_CHARS = 22;

/**
 * Request words and tools as keyed hashes (HMAC-SHA-256 with the deployment's LEARNING_SECRET), the
 * only form in which learning keeps them: a project's log, its remembered searches and the shared
 * model hold these, never a word, so a Redis dump or a heap snapshot shows no request's text. The
 * same word gives the same hash in every project and replica (the shared model counts them), and
 * nobody without the key can test a guessed word against a dump.
 */
export class TermKeys {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    this.#key = key;
  }

  /** A request's index term (report-events.ts's requestTerms). */
  term(term: string): string {
    return this.#hash('term', term);
  }

  terms(terms: readonly string[]): string[] {
    return terms.map((term) => this.term(term));
  }

  /**
   * A tool across projects, by what it is rather than what a router calls it (routers name servers
   * differently, so toolKeys differ): its MCP tool name and description, lower-cased with white space
   * collapsed.
   */
  tool(tool: Pick<ToolInfo, 'toolName' | 'description'>): string {
    return this.#hash('tool', `${normalise(tool.toolName)}\n${normalise(tool.description ?? '')}`);
  }

  /**
   * A Redis key's request-derived part (a request vector's or an LLM answer's content hash), keyed
   * so that a dump cannot confirm a guessed request by hashing it (128 bits: no collisions to fear).
   */
  stored(id: string): string {
    return this.#digest('stored', id).slice(0, STORED_CHARS);
  }

  /**
   * A number in [0, 1) that only the key's holder can compute for `value`: shared learning draws each
   * association's threshold with it (shared-model.ts), so no tenant can tell where one lies.
   */
  draw(domain: string, value: string): number {
    const digest = createHmac('sha256', this.#key).update(`draw\0${domain}\0${value}`).digest();
    return digest.readUIntBE(0, 6) / 2 ** 48;
  }

  #hash(domain: string, value: string): string {
    return this.#digest(domain, value).slice(0, HASH_CHARS);
  }

  #digest(domain: string, value: string): string {
    return createHmac('sha256', this.#key).update(`${domain}\0${value}`).digest('base64url');
  }
}

const normalise = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * The hashes' key: LEARNING_SECRET when set (required in production with shared learning, parse.ts);
 * else derived from the token key settings (development without any: a random key of this process), so that every replica of a deployment hashes alike
 * without a new setting. A derived key from public settings (a public key, a JWKS URL) keeps words
 * unreadable at a glance but guessable by whoever knows those settings: docs/privacy.md says to set
 * LEARNING_SECRET.
 */
export function termKeysFor(secret: string | undefined, auth: AuthKey | undefined): TermKeys {
  // No key at all (development without a token key): one of this process's own.
  const material =
    secret ??
    (auth === undefined
      ? randomBytes(32).toString('base64')
      : auth.kind === 'secret'
        ? auth.secret
        : auth.kind === 'public-key'
          ? auth.pem
          : auth.url);
  const key = hkdfSync('sha256', material, 'catalog-search', 'learning term keys', 32);
  return new TermKeys(Buffer.from(key));
}
