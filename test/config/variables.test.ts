import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DOCS_MARKERS,
  ENV_MARKERS,
  renderDocsTables,
  renderEnvExample,
  replaceBetweenMarkers,
} from '../../scripts/config-reference.js';
import { ConfigError, parseConfig, type Env } from '../../src/config/index.js';
import { VARIABLES, type Variable } from '../../src/config/variables.js';

const docs = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
const envExample = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');
const table = Object.entries(VARIABLES) as [string, Variable][];

/** Every section on (a key, an LLM, Redis, tracing, a metrics port), so every variable is read. */
const everythingOn: Env = {
  NODE_ENV: 'production',
  AUTH_JWT_SECRET: 'x'.repeat(32),
  LLM_BASE_URL: 'http://127.0.0.1:1/v1',
  LLM_MODEL: 'model',
  REDIS_URL: 'redis://127.0.0.1:1',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
  METRICS_PORT: '9464',
  EMBEDDINGS_QUERY_WAIT_MS: '100',
};

function problemsOf(env: Env): readonly string[] {
  try {
    parseConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('the variable table (src/config/variables.ts)', () => {
  it('docs/configuration.md is what the table generates (run `npm run config:docs` and commit when this fails)', () => {
    expect(replaceBetweenMarkers(docs, DOCS_MARKERS, renderDocsTables()), 'docs/configuration.md is stale').toBe(docs);
  });

  it('.env.example is what the table generates (run `npm run config:docs` and commit when this fails)', () => {
    expect(replaceBetweenMarkers(envExample, ENV_MARKERS, renderEnvExample()), '.env.example is stale').toBe(
      envExample,
    );
  });

  it('documents every variable in both files, once', () => {
    for (const [name] of table) {
      expect(docs.split(`| \`${name}\` |`), `${name} in docs/configuration.md`).toHaveLength(2);
      const lines = envExample.split('\n').filter((line) => new RegExp(`^(# (e\\.g\\. )?)?${name}=`).test(line));
      expect(lines, `${name} in .env.example`).toHaveLength(1);
    }
  });

  it('lists exactly the variables the parser reads', () => {
    const read = new Set<string>();
    const recording = new Proxy(everythingOn, {
      get(target, name) {
        if (typeof name === 'string') read.add(name);
        return Reflect.get(target, name);
      },
    });
    parseConfig(recording);
    expect([...read].sort()).toEqual(table.map(([name]) => name).sort());
  });

  it('names a bad value of each bounded number in the one ConfigError, with the bounds of the table', () => {
    const numbers = table.filter(
      (entry): entry is [string, Variable & { kind: 'integer' | 'decimal' }] =>
        entry[1].kind === 'integer' || entry[1].kind === 'decimal',
    );
    expect(numbers.length).toBeGreaterThan(40);
    const expected = (name: string, v: Variable & { kind: 'integer' | 'decimal' }, value: string) =>
      `${name}: must be ${v.kind === 'integer' ? 'an integer' : 'a number'} from ${v.min} to ${v.max} (got "${value}")`;
    for (const [name, v] of numbers) {
      const bad = [String(v.max + 1), 'many', '-1'];
      if (v.min > 0) bad.push(String(v.kind === 'integer' ? v.min - 1 : v.min / 10));
      for (const value of bad) {
        expect(problemsOf({ ...everythingOn, [name]: value }), `${name}=${value}`).toContain(expected(name, v, value));
      }
    }
    // All at once: one error names every one of them.
    const allAbove = Object.fromEntries(numbers.map(([name, v]) => [name, String(v.max + 1)]));
    const named = problemsOf({ ...everythingOn, ...allAbove }).map((problem) => problem.split(':')[0]);
    expect(named).toEqual(expect.arrayContaining(numbers.map(([name]) => name)));
  });

  it('accepts each bounded number at its bounds, and names a bad boolean or choice', () => {
    for (const [name, v] of table) {
      if (v.kind === 'integer' || v.kind === 'decimal') {
        // (A bound may still break a rule between variables, e.g. HEADERS_TIMEOUT_MS above REQUEST_TIMEOUT_MS.)
        for (const value of [v.min, v.max]) {
          const own = problemsOf({ ...everythingOn, [name]: String(value) }).filter((problem) =>
            problem.startsWith(`${name}: must be`),
          );
          expect(own, `${name}=${value}`).toEqual([]);
        }
      } else if (v.kind === 'boolean' || v.kind === 'one-of') {
        expect(problemsOf({ ...everythingOn, [name]: 'maybe' })[0], name).toMatch(new RegExp(`^${name}: must be`));
      }
    }
  });

  it('the defaults of the table are the configuration with nothing set', () => {
    const defaults = parseConfig({});
    expect(defaults.search.maxQueryChars).toBe(VARIABLES.MAX_QUERY_CHARS.default);
    expect(defaults.search.maxContextChars).toBe(VARIABLES.MAX_CONTEXT_CHARS.default);
    expect(defaults.port).toBe(VARIABLES.PORT.default);
    expect(defaults.memory.projectShare).toBe(VARIABLES.CACHE_PROJECT_SHARE.default);
    expect(envExample).toContain(`# MAX_QUERY_CHARS=${defaults.search.maxQueryChars}\n`);
    expect(envExample).toContain(`# MAX_CONTEXT_CHARS=${defaults.search.maxContextChars}\n`);
  });

  it('refuses to write a file whose markers are missing', () => {
    expect(() => replaceBetweenMarkers('no markers here', DOCS_MARKERS, 'x')).toThrow(/markers not found/);
  });
});
