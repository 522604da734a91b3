// Builds the `Config` from the environment: each variable's default and bounds come from the table
// (variables.ts, read through EnvReader); the rules between variables are the code below.
import { HMAC_ALGORITHMS, parseAuth } from './auth.js';
import { readEndpoint } from './endpoint.js';
import { EnvReader, type Env } from './env-reader.js';
import { isHttpUrl } from './http-url.js';
import { placeholderProblems } from './placeholder.js';
import type { AuthConfig, Config, EmbeddingsConfig, LlmConfig, RedisConfig, TracingConfig } from './types.js';

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const MB = 1024 * 1024;

/**
 * Checks every variable and throws one `ConfigError` that names every bad variable, not just the
 * first. Only server.ts passes `process.env`; tests pass their own objects.
 */
export function parseConfig(env: Env): Readonly<Config> {
  const problems: string[] = placeholderProblems(env);
  const read = new EnvReader(env, problems);
  const production = env.NODE_ENV === 'production';

  const config: Config = {
    // Every interface in production (a container or a pod is reached from outside); loopback elsewhere.
    host: read.optionalString('HOST') ?? (production ? '0.0.0.0' : read.string('HOST')),
    port: read.integer('PORT'),
    logLevel: read.oneOf('LOG_LEVEL'),
    production,
    auth: parseAuth(read, production, problems),
    llm: parseLlm(read, problems),
    embeddings: parseEmbeddings(read, problems),
    search: {
      deadlineMs: read.integer('SEARCH_DEADLINE_MS'),
      maxTools: read.integer('MAX_TOOLS'),
      // Hard limits in characters (code points); ranking reads only the first RANKED_QUERY_CHARS of a sub-query.
      maxQueryChars: read.integer('MAX_QUERY_CHARS'),
      maxContextChars: read.integer('MAX_CONTEXT_CHARS'),
      maxDescriptionChars: read.integer('MAX_DESCRIPTION_CHARS'),
      cacheProjects: read.integer('RANK_CACHE_PROJECTS'),
      cacheToolsPerProject: read.integer('RANK_CACHE_TOOLS_PER_PROJECT'),
    },
    http: {
      bodyLimitBytes: read.integer('MAX_BODY_BYTES'),
      requestTimeoutMs: read.integer('REQUEST_TIMEOUT_MS'),
      headersTimeoutMs: read.integer('HEADERS_TIMEOUT_MS'),
      keepAliveTimeoutMs: read.integer('KEEP_ALIVE_TIMEOUT_MS'),
    },
    corsOrigins: parseCorsOrigins(read, problems),
    rateLimitPerMinute: read.integer('RATE_LIMIT_PER_MINUTE'),
    fairShare: {
      maxInFlight: read.integer('MAX_IN_FLIGHT_PER_PROJECT'),
      maxWaiting: read.integer('MAX_WAITING_PER_PROJECT'),
      workPerMinute: read.integer('RATE_LIMIT_WORK_PER_MINUTE'),
      bytesPerMinute: read.integer('RATE_LIMIT_MB_PER_MINUTE') * MB,
    },
    memory: {
      cacheBytes: read.integer('CACHE_MEMORY_MB') * MB,
      projectShare: read.decimal('CACHE_PROJECT_SHARE'),
    },
    redis: parseRedis(read, problems),
    toolSets: {
      ttlMs: read.integer('TOOL_SET_TTL_MS'),
      cacheBytes: read.integer('TOOL_SET_CACHE_BYTES'),
    },
    feedback: parseFeedback(read, production, problems),
    metrics: parseMetrics(read, production, problems),
    docs: { enabled: read.boolean('DOCS_ENABLED') },
    // A page for trying the API: on for development, a choice in production (off unless asked for).
    playground: { enabled: read.oneOf('PLAYGROUND', production ? 'off' : 'on') === 'on' },
    tracing: parseTracing(read, problems),
    shutdown: {
      delayMs: read.integer('SHUTDOWN_DELAY_MS'),
      timeoutMs: read.integer('SHUTDOWN_TIMEOUT_MS'),
    },
  };

  if (config.http.headersTimeoutMs > config.http.requestTimeoutMs) {
    // Node refuses such a server: the headers are part of the request.
    problems.push(`HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS (${config.http.requestTimeoutMs})`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(config);
}

/** Learning from use: its settings, and the secret shared learning's privacy rests on. */
function parseFeedback(read: EnvReader, production: boolean, problems: string[]): Config['feedback'] {
  const feedback: Config['feedback'] = {
    enabled: read.boolean('FEEDBACK_LEARNING'),
    halfLifeMs: read.decimal('FEEDBACK_HALF_LIFE_DAYS') * 86_400_000,
    priorReports: read.decimal('FEEDBACK_MIN_REPORTS'),
    maxBoost: read.decimal('FEEDBACK_MAX_BOOST'),
    maxEvents: read.integer('FEEDBACK_MAX_EVENTS'),
    searchTtlMs: read.integer('FEEDBACK_SEARCH_TTL_MS'),
    maxBodyBytes: read.integer('FEEDBACK_MAX_BODY_BYTES'),
    shared: {
      enabled: read.boolean('LEARNING_SHARED'),
      minProjects: read.integer('LEARNING_SHARED_MIN_PROJECTS'),
      thresholdSpread: read.integer('LEARNING_SHARED_THRESHOLD_SPREAD'),
      maxAssociations: read.integer('LEARNING_SHARED_MAX_ASSOCIATIONS'),
      admission: {
        minDays: read.integer('LEARNING_SHARED_MIN_PROJECT_DAYS'),
        minAgeMs: read.integer('LEARNING_SHARED_MIN_PROJECT_AGE_HOURS') * 3_600_000,
        holdMs: read.integer('LEARNING_SHARED_HOLD_MINUTES') * 60_000,
        newPerHour: read.integer('LEARNING_SHARED_NEW_PER_HOUR'),
      },
      maxSays: read.integer('LEARNING_SHARED_MAX_SAYS'),
    },
    secret: read.secret('LEARNING_SECRET'),
  };
  const { secret, shared } = feedback;
  if (secret !== undefined && Buffer.byteLength(secret) < 32)
    problems.push('LEARNING_SECRET: must be at least 32 bytes');
  // Shared learning's privacy rests on the hashes being unguessable: never on a derived key in production.
  if (production && shared.enabled && feedback.enabled && secret === undefined) {
    problems.push('LEARNING_SECRET: required in production with LEARNING_SHARED=true (at least 32 bytes)');
  }
  return feedback;
}

/** Development only (server.ts, NODE_ENV != production, no key set): verify with a throwaway HS256 secret. */
export function withDevelopmentKey(config: Readonly<Config>, secret: string): Readonly<Config> {
  if (config.production) throw new Error('a development key is never used in production');
  const auth: AuthConfig = {
    key: { kind: 'secret', secret, algorithms: HMAC_ALGORITHMS },
    issuers: [],
    audiences: [],
    projectClaim: 'projectId',
    clockToleranceMs: 30_000,
    development: true,
  };
  return deepFreeze({ ...config, auth });
}

function parseLlm(read: EnvReader, problems: string[]): LlmConfig | undefined {
  const endpoint = readEndpoint(read, 'LLM', problems);
  // Read even when the stage is off, so a bad value is reported rather than silently ignored.
  const promptTokenBudget = read.integer('LLM_PROMPT_TOKEN_BUDGET');
  const cacheTtlMs = read.integer('LLM_CACHE_TTL_MS');
  const cacheEntriesPerProject = read.integer('LLM_CACHE_ENTRIES_PER_PROJECT');
  return endpoint.state === 'set'
    ? { ...endpoint.endpoint, promptTokenBudget, cacheTtlMs, cacheEntriesPerProject }
    : undefined;
}

function parseEmbeddings(read: EnvReader, problems: string[]): EmbeddingsConfig | undefined {
  const endpoint = readEndpoint(read, 'EMBEDDINGS', problems);
  const scripts = parseScripts(read.list('EMBEDDINGS_SCRIPTS'), problems);
  // Unset: on with an endpoint (configuring one asks for the stage), off otherwise: the embedded
  // encoder is opt-in for its cost per search and per replica (docs/configuration.md).
  const mode = read.oneOf('EMBEDDINGS', endpoint.state === 'unset' ? 'off' : 'on');
  const settings = {
    threads: read.integer('EMBEDDINGS_THREADS'),
    backgroundNice: read.integer('EMBEDDINGS_BACKGROUND_NICE'),
    cacheBytes: read.integer('EMBEDDINGS_CACHE_MB') * 1024 * 1024,
    // 0: no search waits for a new list's tool vectors (docs/performance.md).
    waitShare: read.integer('EMBEDDINGS_WAIT_PERCENT') / 100,
    queryWaitMs: read.optionalInteger('EMBEDDINGS_QUERY_WAIT_MS'),
    maxQueuedPerProject: read.integer('EMBEDDINGS_QUEUE_PER_PROJECT'),
  };
  if (endpoint.state === 'unset') {
    if (scripts !== undefined)
      problems.push(
        "EMBEDDINGS_SCRIPTS: says what an embeddings endpoint's model reads; the embedded encoder reads Latin script (English) only. Set EMBEDDINGS_BASE_URL and EMBEDDINGS_MODEL too, or unset it",
      );
    return mode === 'off' ? undefined : { endpoint: undefined, ...settings };
  }
  if (endpoint.state === 'invalid' || mode === 'off') return undefined;
  return { endpoint: { ...endpoint.endpoint, scripts }, ...settings };
}

/** EMBEDDINGS_SCRIPTS: Unicode script names (`Latin`, `Cyrillic`, `Han`, …); none: every script. */
function parseScripts(names: string[], problems: string[]): string[] | undefined {
  if (names.length === 0) return undefined;
  for (const name of names) {
    if (!isScriptName(name)) {
      problems.push(
        `EMBEDDINGS_SCRIPTS: "${name}" is not a Unicode script name (e.g. Latin, Cyrillic, Greek, Han, Hiragana, Katakana, Hangul, Arabic)`,
      );
    }
  }
  return names;
}

/** Whether Unicode (as this Node's RegExp knows it) has a script of this name. */
function isScriptName(name: string): boolean {
  if (!/^[A-Za-z_]+$/.test(name)) return false;
  try {
    new RegExp(`\\p{Script=${name}}`, 'u');
    return true;
  } catch {
    return false;
  }
}

function parseRedis(read: EnvReader, problems: string[]): RedisConfig | undefined {
  const url = read.optionalString('REDIS_URL');
  const commandTimeoutMs = read.integer('REDIS_TIMEOUT_MS');
  const stateTimeoutMs = read.integer('REDIS_STATE_TIMEOUT_MS');
  const keyPrefix = read.string('REDIS_KEY_PREFIX');
  if (url === undefined) return undefined;
  let protocol = '';
  try {
    protocol = new URL(url).protocol;
  } catch {
    // reported below, without the URL (it may carry a password)
  }
  if (protocol !== 'redis:' && protocol !== 'rediss:') {
    problems.push('REDIS_URL: must be a redis:// or rediss:// URL (e.g. rediss://:password@redis.example:6380/0)');
    return undefined;
  }
  return { url, commandTimeoutMs, stateTimeoutMs, keyPrefix };
}

/**
 * Metrics are on by default, except in production without METRICS_PORT: there they would be served on
 * the public API port without authentication (an attack run read them so), so they are off unless
 * METRICS_ENABLED=true says to serve them there.
 */
function parseMetrics(read: EnvReader, production: boolean, problems: string[]): Config['metrics'] {
  const port = read.optionalInteger('METRICS_PORT');
  const enabled = read.boolean('METRICS_ENABLED', !production || port !== undefined);
  const path = read.string('METRICS_PATH');
  const host = read.string('METRICS_HOST');
  if (!/^\/[A-Za-z0-9/_.-]*$/.test(path) || path.startsWith('/v1/') || path === '/catalog/search') {
    problems.push(`METRICS_PATH: must be a path like /metrics outside the API (got "${path}")`);
  }
  return { enabled, path, port, host };
}

/**
 * The standard OpenTelemetry variables: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is the full URL;
 * OTEL_EXPORTER_OTLP_ENDPOINT is a base that gets /v1/traces appended (OTLP exporter spec).
 * Neither set, or OTEL_SDK_DISABLED=true: tracing is off.
 */
function parseTracing(read: EnvReader, problems: string[]): TracingConfig | undefined {
  const serviceName = read.string('OTEL_SERVICE_NAME');
  if (read.boolean('OTEL_SDK_DISABLED')) return undefined;
  const traces = read.optionalString('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = read.optionalString('OTEL_EXPORTER_OTLP_ENDPOINT');
  const [name, value] =
    traces !== undefined ? ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', traces] : ['OTEL_EXPORTER_OTLP_ENDPOINT', base];
  if (value === undefined) return undefined;
  if (!isHttpUrl(value)) {
    problems.push(`${name}: must be an http(s) URL like http://otel-collector:4318 (got "${value}")`);
    return undefined;
  }
  return { endpoint: traces ?? `${value.replace(/\/+$/, '')}/v1/traces`, serviceName };
}

function parseCorsOrigins(read: EnvReader, problems: string[]): string[] {
  const origins = read.list('CORS_ORIGINS');
  for (const origin of origins) {
    if (origin !== '*' && !(isHttpUrl(origin) && new URL(origin).origin === origin)) {
      problems.push(`CORS_ORIGINS: "${origin}" is not an origin like https://app.example.com (or *)`);
    }
  }
  return origins;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
