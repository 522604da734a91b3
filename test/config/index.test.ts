import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/index.js';

const SECRET = 'x'.repeat(32);

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    parseConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

/** Shared learning's settings when no LEARNING_SHARED_* variable is set. */
const DEFAULT_SHARED = {
  enabled: false,
  minProjects: 5,
  thresholdSpread: 3,
  maxAssociations: 100_000,
  admission: { minDays: 2, minAgeMs: 86_400_000, holdMs: 3_600_000, newPerHour: 1000 },
  maxSays: 300_000,
};

describe('parseConfig', () => {
  it('applies the documented defaults', () => {
    const config = parseConfig({ AUTH_JWT_SECRET: SECRET });
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      logLevel: 'info',
      production: false,
      llm: undefined,
      rateLimitPerMinute: 600,
      search: {
        deadlineMs: 4000,
        maxTools: 5000,
        maxQueryChars: 32_000,
        maxContextChars: 64_000,
        maxDescriptionChars: 2000,
      },
      http: { bodyLimitBytes: 5 * 1024 * 1024 },
    });
    expect(config.auth).toMatchObject({
      key: { kind: 'secret', algorithms: ['HS256', 'HS384', 'HS512'] },
      issuers: [],
      audiences: [],
      projectClaim: 'projectId',
      clockToleranceMs: 30_000,
    });
    expect(Object.isFrozen(config.search)).toBe(true);
  });

  it('reads every variable', () => {
    const config = parseConfig({
      HOST: '127.0.0.1',
      PORT: '9000',
      LOG_LEVEL: 'debug',
      NODE_ENV: 'production',
      AUTH_JWT_SECRET: SECRET,
      AUTH_ISSUER: 'https://a.example, https://b.example',
      AUTH_AUDIENCE: 'catalog-search',
      AUTH_PROJECT_CLAIM: 'tenant',
      AUTH_CLOCK_TOLERANCE_SEC: '5',
      LLM_BASE_URL: 'http://127.0.0.1:11434/v1',
      LLM_MODEL: 'qwen',
      LLM_API_KEY: 'k',
      SEARCH_DEADLINE_MS: '2500',
      MAX_TOOLS: '100',
      MAX_BODY_BYTES: '2048',
      RATE_LIMIT_PER_MINUTE: '0',
    });
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 9000,
      logLevel: 'debug',
      production: true,
      rateLimitPerMinute: 0,
      llm: {
        baseUrl: 'http://127.0.0.1:11434/v1',
        model: 'qwen',
        apiKey: 'k',
        promptTokenBudget: 7000,
        cacheTtlMs: 600_000,
        cacheEntriesPerProject: 500,
      },
      search: { deadlineMs: 2500, maxTools: 100 },
      http: { bodyLimitBytes: 2048 },
    });
    expect(config.auth).toMatchObject({
      issuers: ['https://a.example', 'https://b.example'],
      audiences: ['catalog-search'],
      projectClaim: 'tenant',
      clockToleranceMs: 5000,
    });
  });

  it('reads the fair-share limits and the cache memory budget, with their defaults', () => {
    const defaults = parseConfig({});
    expect(defaults.fairShare).toEqual({
      maxInFlight: 8,
      maxWaiting: 32,
      workPerMinute: 600_000,
      bytesPerMinute: 300 * 1024 * 1024,
    });
    expect(defaults.memory).toEqual({ cacheBytes: 128 * 1024 * 1024, projectShare: 0.25 });
    const set = parseConfig({
      MAX_IN_FLIGHT_PER_PROJECT: '2',
      MAX_WAITING_PER_PROJECT: '0',
      RATE_LIMIT_WORK_PER_MINUTE: '0',
      RATE_LIMIT_MB_PER_MINUTE: '10',
      CACHE_MEMORY_MB: '64',
      CACHE_PROJECT_SHARE: '0.5',
    });
    expect(set.fairShare).toEqual({
      maxInFlight: 2,
      maxWaiting: 0,
      workPerMinute: 0,
      bytesPerMinute: 10 * 1024 * 1024,
    });
    expect(set.memory).toEqual({ cacheBytes: 64 * 1024 * 1024, projectShare: 0.5 });
    const named = problemsOf({
      MAX_IN_FLIGHT_PER_PROJECT: '-1',
      CACHE_MEMORY_MB: '1',
      CACHE_PROJECT_SHARE: '2',
      RATE_LIMIT_MB_PER_MINUTE: 'lots',
    }).map((problem) => problem.split(':')[0]);
    expect(named).toEqual(
      expect.arrayContaining([
        'MAX_IN_FLIGHT_PER_PROJECT',
        'CACHE_MEMORY_MB',
        'CACHE_PROJECT_SHARE',
        'RATE_LIMIT_MB_PER_MINUTE',
      ]),
    );
  });

  it('reads the learning-from-use settings (FEEDBACK_*), with their defaults, and names bad values', () => {
    expect(parseConfig({}).feedback).toEqual({
      enabled: true,
      halfLifeMs: 14 * 86_400_000,
      priorReports: 3,
      maxBoost: 0.9,
      maxEvents: 5000,
      searchTtlMs: 900_000,
      maxBodyBytes: 256 * 1024,
      shared: DEFAULT_SHARED,
      secret: undefined,
    });
    const set = parseConfig({
      FEEDBACK_LEARNING: 'false',
      FEEDBACK_HALF_LIFE_DAYS: '7',
      FEEDBACK_MIN_REPORTS: '5',
      FEEDBACK_MAX_BOOST: '0.5',
      FEEDBACK_MAX_EVENTS: '100',
      FEEDBACK_SEARCH_TTL_MS: '60000',
      FEEDBACK_MAX_BODY_BYTES: '4096',
    });
    expect(set.feedback).toEqual({
      enabled: false,
      halfLifeMs: 7 * 86_400_000,
      priorReports: 5,
      maxBoost: 0.5,
      maxEvents: 100,
      searchTtlMs: 60_000,
      maxBodyBytes: 4096,
      shared: DEFAULT_SHARED,
      secret: undefined,
    });
    const named = problemsOf({
      FEEDBACK_HALF_LIFE_DAYS: '0',
      FEEDBACK_MAX_BOOST: '3',
      FEEDBACK_MAX_EVENTS: 'many',
      FEEDBACK_LEARNING: 'maybe',
    }).map((problem) => problem.split(':')[0]);
    expect(named).toEqual(
      expect.arrayContaining([
        'FEEDBACK_HALF_LIFE_DAYS',
        'FEEDBACK_MAX_BOOST',
        'FEEDBACK_MAX_EVENTS',
        'FEEDBACK_LEARNING',
      ]),
    );
  });

  it('reads the shared-learning settings (LEARNING_*) and refuses production without LEARNING_SECRET', () => {
    const key = 'k'.repeat(32);
    expect(
      parseConfig({
        LEARNING_SHARED: 'true',
        LEARNING_SHARED_MIN_PROJECTS: '3',
        LEARNING_SHARED_MAX_ASSOCIATIONS: '5000',
        LEARNING_SHARED_MIN_PROJECT_DAYS: '3',
        LEARNING_SHARED_MIN_PROJECT_AGE_HOURS: '48',
        LEARNING_SHARED_HOLD_MINUTES: '90',
        LEARNING_SHARED_NEW_PER_HOUR: '200',
        LEARNING_SHARED_MAX_SAYS: '50000',
        LEARNING_SECRET: key,
      }).feedback,
    ).toMatchObject({
      shared: {
        enabled: true,
        minProjects: 3,
        maxAssociations: 5000,
        admission: { minDays: 3, minAgeMs: 48 * 3_600_000, holdMs: 90 * 60_000, newPerHour: 200 },
        maxSays: 50_000,
      },
      secret: key,
    });
    const production = { NODE_ENV: 'production', AUTH_JWT_SECRET: SECRET };
    expect(problemsOf({ ...production, LEARNING_SHARED: 'true' })).toEqual([
      'LEARNING_SECRET: required in production with LEARNING_SHARED=true (at least 32 bytes)',
    ]);
    expect(parseConfig({ ...production, LEARNING_SHARED: 'true', LEARNING_SECRET: key }).feedback.shared.enabled).toBe(
      true,
    );
    // Off (the default), production needs no secret: the hashes' key is derived (term-keys.ts).
    expect(parseConfig(production).feedback.secret).toBeUndefined();
    expect(problemsOf({ LEARNING_SECRET: 'short', LEARNING_SHARED_MIN_PROJECTS: '0' })).toEqual([
      'LEARNING_SHARED_MIN_PROJECTS: must be an integer from 1 to 1000 (got "0")',
      'LEARNING_SECRET: must be at least 32 bytes',
    ]);
  });

  it('leaves the embedded encoder off by default, runs it with EMBEDDINGS=on, and reads an endpoint', () => {
    expect(parseConfig({ AUTH_JWT_SECRET: SECRET }).embeddings).toBeUndefined();
    expect(parseConfig({ AUTH_JWT_SECRET: SECRET, EMBEDDINGS: 'on' }).embeddings).toEqual({
      endpoint: undefined,
      threads: 1,
      backgroundNice: 10,
      cacheBytes: 128 * 1024 * 1024,
      waitShare: 0,
      queryWaitMs: undefined,
      maxQueuedPerProject: 5000,
    });
    expect(parseConfig({ AUTH_JWT_SECRET: SECRET, EMBEDDINGS: 'off' }).embeddings).toBeUndefined();
    const config = parseConfig({
      AUTH_JWT_SECRET: SECRET,
      EMBEDDINGS_BASE_URL: 'http://127.0.0.1:8081/v1',
      EMBEDDINGS_MODEL: 'bge-small',
      EMBEDDINGS_API_KEY: 'k',
      EMBEDDINGS_CACHE_MB: '16',
      EMBEDDINGS_WAIT_PERCENT: '10',
      EMBEDDINGS_QUEUE_PER_PROJECT: '100',
      EMBEDDINGS_THREADS: '2',
      EMBEDDINGS_BACKGROUND_NICE: '0',
      EMBEDDINGS_QUERY_WAIT_MS: '120',
    });
    expect(config.embeddings).toEqual({
      endpoint: { baseUrl: 'http://127.0.0.1:8081/v1', model: 'bge-small', apiKey: 'k' },
      threads: 2,
      backgroundNice: 0,
      cacheBytes: 16 * 1024 * 1024,
      waitShare: 0.1,
      queryWaitMs: 120,
      maxQueuedPerProject: 100,
    });
    // An endpoint asks for the stage; EMBEDDINGS=off still turns it off.
    const endpointOnly = {
      AUTH_JWT_SECRET: SECRET,
      EMBEDDINGS_BASE_URL: 'http://127.0.0.1:8081/v1',
      EMBEDDINGS_MODEL: 'm',
    };
    expect(parseConfig(endpointOnly).embeddings?.endpoint?.model).toBe('m');
    expect(parseConfig({ ...endpointOnly, EMBEDDINGS: 'off' }).embeddings).toBeUndefined();
  });

  it('names bad embeddings variables', () => {
    const named = problemsOf({
      AUTH_JWT_SECRET: SECRET,
      EMBEDDINGS: 'maybe',
      EMBEDDINGS_BASE_URL: 'ftp://x',
      EMBEDDINGS_WAIT_PERCENT: '150',
      EMBEDDINGS_QUERY_WAIT_MS: 'soon',
    }).map((problem) => problem.split(':')[0]);
    expect(named).toEqual(
      expect.arrayContaining([
        'EMBEDDINGS',
        'EMBEDDINGS_BASE_URL',
        'EMBEDDINGS_MODEL',
        'EMBEDDINGS_WAIT_PERCENT',
        'EMBEDDINGS_QUERY_WAIT_MS',
      ]),
    );
    expect(problemsOf({ AUTH_JWT_SECRET: SECRET, EMBEDDINGS_API_KEY: 'k' })[0]).toMatch(/^EMBEDDINGS_API_KEY/);
  });

  it("EMBEDDINGS_SCRIPTS: the scripts an endpoint's model reads, as Unicode names; only with an endpoint", () => {
    const endpoint = {
      AUTH_JWT_SECRET: SECRET,
      EMBEDDINGS_BASE_URL: 'http://127.0.0.1:8081/v1',
      EMBEDDINGS_MODEL: 'm',
    };
    expect(parseConfig(endpoint).embeddings?.endpoint?.scripts).toBeUndefined();
    expect(parseConfig({ ...endpoint, EMBEDDINGS_SCRIPTS: 'Latin, Cyrillic' }).embeddings?.endpoint?.scripts).toEqual([
      'Latin',
      'Cyrillic',
    ]);
    expect(problemsOf({ ...endpoint, EMBEDDINGS_SCRIPTS: 'Latin,Latn-ish' })).toEqual([
      expect.stringMatching(/^EMBEDDINGS_SCRIPTS: "Latn-ish" is not a Unicode script name/),
    ]);
    expect(problemsOf({ AUTH_JWT_SECRET: SECRET, EMBEDDINGS: 'on', EMBEDDINGS_SCRIPTS: 'Han' })).toEqual([
      expect.stringMatching(/^EMBEDDINGS_SCRIPTS: .*embedded encoder reads Latin script/),
    ]);
  });

  it('names every bad variable at once', () => {
    const problems = problemsOf({
      PORT: 'eighty',
      LOG_LEVEL: 'loud',
      SEARCH_DEADLINE_MS: '-1',
      MAX_TOOLS: '0',
      AUTH_JWT_SECRET: 'short',
      LLM_BASE_URL: 'not a url',
      RATE_LIMIT_PER_MINUTE: '1.5',
    });
    const named = problems.map((problem) => problem.split(':')[0]);
    expect(named).toEqual(
      expect.arrayContaining([
        'PORT',
        'LOG_LEVEL',
        'SEARCH_DEADLINE_MS',
        'MAX_TOOLS',
        'AUTH_JWT_SECRET',
        'LLM_BASE_URL',
        'LLM_MODEL',
        'RATE_LIMIT_PER_MINUTE',
      ]),
    );
    // The secret itself is never echoed.
    expect(problems.join('\n')).not.toContain('short');
  });

  it('in production refuses to start without a key, naming the three variables', () => {
    const [problem] = problemsOf({ NODE_ENV: 'production' });
    expect(problem).toContain('AUTH_JWT_SECRET');
    expect(problem).toContain('AUTH_JWT_PUBLIC_KEY');
    expect(problem).toContain('AUTH_JWKS_URL');
  });

  it('listens on loopback by default outside production, and on every interface in production', () => {
    expect(parseConfig({ AUTH_JWT_SECRET: SECRET }).host).toBe('127.0.0.1');
    expect(parseConfig({ NODE_ENV: 'development', AUTH_JWT_SECRET: SECRET }).host).toBe('127.0.0.1');
    expect(parseConfig({ NODE_ENV: 'production', AUTH_JWT_SECRET: SECRET }).host).toBe('0.0.0.0');
    expect(parseConfig({ HOST: '0.0.0.0', AUTH_JWT_SECRET: SECRET }).host).toBe('0.0.0.0');
    expect(parseConfig({ NODE_ENV: 'production', HOST: '10.0.0.5', AUTH_JWT_SECRET: SECRET }).host).toBe('10.0.0.5');
  });

  it('outside production no key means auth is left to the development key', () => {
    expect(parseConfig({}).auth).toBeUndefined();
  });

  it('refuses two key sources at once', () => {
    expect(problemsOf({ AUTH_JWT_SECRET: SECRET, AUTH_JWKS_URL: 'https://idp.example/jwks.json' })[0]).toMatch(
      /AUTH_JWT_SECRET, AUTH_JWKS_URL/,
    );
  });

  it('pins algorithms to the PEM key type, and accepts "\\n"-escaped PEM', () => {
    const algorithmsOf = (pem: string) => {
      const auth = parseConfig({ AUTH_JWT_PUBLIC_KEY: pem }).auth!;
      return auth.key.algorithms;
    };
    const pemOf = (pair: ReturnType<typeof generateKeyPairSync>) =>
      pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const rsa = pemOf(generateKeyPairSync('rsa', { modulusLength: 2048 }));
    expect(algorithmsOf(rsa)).toEqual(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512']);
    expect(algorithmsOf(rsa.replaceAll('\n', '\\n'))).toEqual(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512']);
    expect(algorithmsOf(pemOf(generateKeyPairSync('ec', { namedCurve: 'P-256' })))).toEqual(['ES256']);
    expect(algorithmsOf(pemOf(generateKeyPairSync('ec', { namedCurve: 'P-521' })))).toEqual(['ES512']);
    expect(algorithmsOf(pemOf(generateKeyPairSync('ed25519')))).toEqual(['EdDSA']);
    expect(problemsOf({ AUTH_JWT_PUBLIC_KEY: 'hello' })[0]).toMatch(/^AUTH_JWT_PUBLIC_KEY: not a PEM public key/);
    expect(problemsOf({ AUTH_JWT_PUBLIC_KEY: pemOf(generateKeyPairSync('x25519')) })[0]).toMatch(
      /^AUTH_JWT_PUBLIC_KEY: unsupported key type/,
    );
  });

  it('refuses a header timeout longer than the request timeout (Node would refuse to create the server)', () => {
    expect(problemsOf({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' })).toEqual([
      'HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS (10000)',
    ]);
    expect(parseConfig({ HEADERS_TIMEOUT_MS: '10000', REQUEST_TIMEOUT_MS: '10000' }).http.headersTimeoutMs).toBe(
      10_000,
    );
  });

  it('checks the JWKS URL', () => {
    expect(parseConfig({ AUTH_JWKS_URL: 'https://idp.example/.well-known/jwks.json' }).auth!.key.kind).toBe('jwks');
    expect(problemsOf({ AUTH_JWKS_URL: 'ftp://idp.example/jwks' })[0]).toMatch(/^AUTH_JWKS_URL/);
  });

  it('LLM_* are all-or-nothing: base URL and model together', () => {
    expect(problemsOf({ LLM_MODEL: 'm' })[0]).toMatch(/^LLM_BASE_URL: required/);
    expect(problemsOf({ LLM_BASE_URL: 'https://api.example/v1' })[0]).toMatch(/^LLM_MODEL: required/);
    expect(problemsOf({ LLM_API_KEY: 'k' })[0]).toMatch(/^LLM_API_KEY/);
    expect(parseConfig({ LLM_BASE_URL: 'https://api.example/v1', LLM_MODEL: 'm' }).llm).toEqual({
      baseUrl: 'https://api.example/v1',
      model: 'm',
      apiKey: undefined,
      promptTokenBudget: 7000,
      cacheTtlMs: 600_000,
      cacheEntriesPerProject: 500,
    });
  });

  it('reads the LLM stage tuning and names bad values', () => {
    const env = {
      LLM_BASE_URL: 'https://api.example/v1',
      LLM_MODEL: 'm',
      LLM_PROMPT_TOKEN_BUDGET: '12000',
      LLM_CACHE_TTL_MS: '0',
    };
    expect(parseConfig(env).llm).toMatchObject({ promptTokenBudget: 12_000, cacheTtlMs: 0 });
    expect(problemsOf({ LLM_PROMPT_TOKEN_BUDGET: '50' })[0]).toMatch(/^LLM_PROMPT_TOKEN_BUDGET: must be an integer/);
    expect(problemsOf({ LLM_CACHE_TTL_MS: '-1' })[0]).toMatch(/^LLM_CACHE_TTL_MS/);
  });

  it('reads CORS origins and refuses what is not an origin', () => {
    expect(parseConfig({ CORS_ORIGINS: 'https://a.example, http://localhost:5173' }).corsOrigins).toEqual([
      'https://a.example',
      'http://localhost:5173',
    ]);
    expect(parseConfig({}).corsOrigins).toEqual([]);
    expect(problemsOf({ CORS_ORIGINS: 'https://a.example/path' })[0]).toMatch(/^CORS_ORIGINS/);
  });

  it('reads REDIS_URL (redis:// or rediss://) and never echoes it when it is wrong', () => {
    expect(parseConfig({ AUTH_JWT_SECRET: SECRET }).redis).toBeUndefined();
    const config = parseConfig({
      AUTH_JWT_SECRET: SECRET,
      REDIS_URL: 'rediss://default:s3cret@redis.example:6380/0',
      REDIS_TIMEOUT_MS: '50',
    });
    expect(config.redis).toEqual({
      url: 'rediss://default:s3cret@redis.example:6380/0',
      commandTimeoutMs: 50,
      // Shared state waits longer than a cache by default (REDIS_STATE_TIMEOUT_MS).
      stateTimeoutMs: 1000,
      keyPrefix: 'catalog-search:',
    });
    expect(
      parseConfig({ AUTH_JWT_SECRET: SECRET, REDIS_URL: 'redis://r', REDIS_STATE_TIMEOUT_MS: '2500' }).redis,
    ).toMatchObject({ commandTimeoutMs: 100, stateTimeoutMs: 2500 });
    const problems = problemsOf({ AUTH_JWT_SECRET: SECRET, REDIS_URL: 'http://user:s3cret@redis.example' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/);
    expect(problems[0]).not.toContain('s3cret');
  });

  it('reads the metrics settings and keeps METRICS_PATH off the API', () => {
    expect(parseConfig({ AUTH_JWT_SECRET: SECRET }).metrics).toEqual({
      enabled: true,
      path: '/metrics',
      port: undefined,
      host: '0.0.0.0',
    });
    // Production: not on the public API port unless told to; on their own port by default.
    const production = { AUTH_JWT_SECRET: SECRET, NODE_ENV: 'production' };
    expect(parseConfig(production).metrics).toMatchObject({ enabled: false, port: undefined });
    expect(parseConfig({ ...production, METRICS_ENABLED: 'true' }).metrics).toMatchObject({
      enabled: true,
      port: undefined,
    });
    expect(parseConfig({ ...production, METRICS_PORT: '9464' }).metrics).toMatchObject({ enabled: true, port: 9464 });
    expect(
      parseConfig({ AUTH_JWT_SECRET: SECRET, METRICS_PORT: '9464', METRICS_ENABLED: 'false' }).metrics,
    ).toMatchObject({ enabled: false, port: 9464 });
    for (const path of ['/v1/catalog/search', 'metrics', '/catalog/search']) {
      expect(problemsOf({ AUTH_JWT_SECRET: SECRET, METRICS_PATH: path })[0]).toMatch(/^METRICS_PATH/);
    }
    expect(problemsOf({ AUTH_JWT_SECRET: SECRET, METRICS_PORT: '0' })[0]).toMatch(/^METRICS_PORT/);
  });

  it('treats an empty variable as unset', () => {
    expect(parseConfig({ PORT: '', AUTH_JWT_SECRET: SECRET, LLM_BASE_URL: '' }).port).toBe(8080);
  });
});
