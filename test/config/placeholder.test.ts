import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigError, parseConfig } from '../../src/config/index.js';

/**
 * A value the project's own templates and docs show where a real one goes must stop the service, in
 * every start path (all of them run parseConfig): a copied template secret would otherwise sign tokens.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const CREDENTIALS = [
  'AUTH_JWT_SECRET',
  'AUTH_JWT_PUBLIC_KEY',
  'AUTH_JWKS_URL',
  'LLM_API_KEY',
  'EMBEDDINGS_API_KEY',
  'REDIS_URL',
];
// Values the templates give that work as they are: compose's and the Kubernetes overlay's own Redis.
const WORKING_VALUES = new Set(['redis://redis:6379', 'redis://catalog-search-redis:6379']);

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    parseConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

const placeholderProblem = (name: string) =>
  `${name}: is a placeholder from the project's templates or docs; set the real value`;

/** Every `NAME=value` / `NAME: value` of a credential in the templates and docs, as a self-hoster would copy it. */
function shippedValues(): { file: string; name: string; value: string }[] {
  const files = [
    '.env.example',
    'docker-compose.yml',
    'Dockerfile',
    'README.md',
    'packages/client/README.md',
    ...readdirSync(`${root}docs`).map((file) => `docs/${file}`),
    ...readdirSync(`${root}deploy`, { recursive: true, encoding: 'utf8' })
      .filter((file) => /\.ya?ml$/.test(file))
      .map((file) => `deploy/${file}`),
    ...readdirSync(`${root}examples`, { recursive: true, encoding: 'utf8' })
      .filter((file) => /\.(ts|md|json)$/.test(file))
      .map((file) => `examples/${file}`),
  ];
  const assignment = new RegExp(`\\b(${CREDENTIALS.join('|')})(?:=|: )(['"]?)([^\\s'"\`|)]+)`, 'g');
  return files.flatMap((file) =>
    [...readFileSync(`${root}${file}`, 'utf8').matchAll(assignment)]
      .map(([, name, , value]) => ({ file, name: name!, value: value! }))
      // A shell expansion ("$(openssl rand …)", "$AUTH_JWT_SECRET", "${REDIS_URL:-…}") is not a value.
      .filter(({ value }) => !value.startsWith('$') && !WORKING_VALUES.has(value)),
  );
}

describe('placeholder values', () => {
  it('every credential value the templates and docs show is refused, naming its variable', () => {
    const found = shippedValues();
    // The scan does find them: the Secret template's, .env.example's example, the docs' elisions.
    expect(found.map(({ file }) => file)).toEqual(
      expect.arrayContaining(['deploy/base/secret.template.yaml', '.env.example', 'docs/self-hosting.md']),
    );
    for (const { file, name, value } of found) {
      const problems = problemsOf({ NODE_ENV: 'production', [name]: value });
      expect(problems, `${file}: ${name}`).toContain(placeholderProblem(name));
      // Never echoed: it may be a secret.
      expect(problems.join('\n')).not.toContain(value);
    }
  });

  it("the Secret template's values, the commented-out ones too, are refused outside production as well", () => {
    const template = readFileSync(`${root}deploy/base/secret.template.yaml`, 'utf8');
    const { stringData } = parse(template) as { stringData: Record<string, string> };
    // Uncommented: the `# NAME: value` lines of stringData and the lines of a block value below one.
    const uncommented = template.replace(/^(\s+)# ((?:[A-Z_]+:|\s\s).*)$/gm, '$1$2');
    const commented = parse(uncommented) as { stringData: Record<string, string> };
    expect(Object.keys(commented.stringData)).toEqual(
      expect.arrayContaining(['AUTH_JWT_SECRET', 'AUTH_JWT_PUBLIC_KEY', 'AUTH_JWKS_URL', 'LLM_API_KEY', 'REDIS_URL']),
    );
    // The secret passes the 32-byte check: only the placeholder check stops it.
    expect(Buffer.byteLength(stringData.AUTH_JWT_SECRET!)).toBeGreaterThanOrEqual(32);
    for (const [name, value] of Object.entries({ ...commented.stringData, ...stringData }))
      for (const nodeEnv of ['production', 'development'])
        expect(problemsOf({ NODE_ENV: nodeEnv, [name]: value }), name).toContain(placeholderProblem(name));
  });

  it('changeme, <your-key> and a password written as "password" are refused; real values are not', () => {
    for (const value of ['changeme-changeme-changeme-changeme', '<your-signing-secret-of-32-bytes-or-more>'])
      expect(problemsOf({ AUTH_JWT_SECRET: value })).toContain(placeholderProblem('AUTH_JWT_SECRET'));
    expect(problemsOf({ REDIS_URL: 'rediss://user:password@host:6380' })).toContain(placeholderProblem('REDIS_URL'));
    expect(
      problemsOf({
        NODE_ENV: 'production',
        AUTH_JWT_SECRET: 'Zq3v9Yt2mW8kR1pX5nL7bC4hJ6dF0sG2aE8uI3oT5yQ',
        REDIS_URL: 'rediss://default:s3cr3t-Redis-pass@redis.internal:6380/0',
        LLM_BASE_URL: 'https://api.openai.com/v1',
        LLM_MODEL: 'gpt-4o-mini',
        LLM_API_KEY: 'sk-proj-0123456789abcdef',
      }),
    ).toEqual([]);
  });
});
