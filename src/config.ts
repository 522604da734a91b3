import { createPublicKey, type KeyObject } from 'node:crypto';
import { DEFAULT_MAX_CONTEXT_CHARS, DEFAULT_MAX_DESCRIPTION_CHARS, DEFAULT_MAX_QUERY_CHARS } from '@catalog-search/core';

/**
 * Configuration comes from environment variables only, parsed once at start. `parseConfig` takes
 * the env object as an argument (only server.ts passes `process.env`), checks every variable and
 * throws one `ConfigError` that names every bad variable, not just the first.
 */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** How tokens are verified: one key source, and the algorithms that key type allows. */
export type AuthKey =
  | { kind: 'secret'; secret: string; algorithms: readonly JwtAlgorithm[] }
  | { kind: 'public-key'; pem: string; algorithms: readonly JwtAlgorithm[] }
  | {
      kind: 'jwks';
      url: string;
      algorithms: readonly JwtAlgorithm[];
      cacheTtlMs: number;
      /** Least time between JWKS refetches caused by unknown kids, and between retries after a failed fetch. */
      minRefetchMs: number;
    };

export type JwtAlgorithm =
  | 'HS256' | 'HS384' | 'HS512'
  | 'RS256' | 'RS384' | 'RS512'
  | 'PS256' | 'PS384' | 'PS512'
  | 'ES256' | 'ES384' | 'ES512'
  | 'EdDSA';

export const HMAC_ALGORITHMS: readonly JwtAlgorithm[] = ['HS256', 'HS384', 'HS512'];
const RSA_ALGORITHMS: readonly JwtAlgorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];
const PSS_ALGORITHMS: readonly JwtAlgorithm[] = ['PS256', 'PS384', 'PS512'];
/** JWKS keys can be of any asymmetric type; each key is still checked against its own type. */
export const ASYMMETRIC_ALGORITHMS: readonly JwtAlgorithm[] = [...RSA_ALGORITHMS, 'ES256', 'ES384', 'ES512', 'EdDSA'];

export interface AuthConfig {
  key: AuthKey;
  /** Accepted `iss` values; empty = not checked. */
  issuers: readonly string[];
  /** Accepted `aud` values; empty = not checked. */
  audiences: readonly string[];
  /** The claim that names the tenant (project). */
  projectClaim: string;
  clockToleranceMs: number;
}

export interface LlmConfig {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  /** Most prompt tokens (o200k) for queries, context and candidate lines (LLM_PROMPT_TOKEN_BUDGET). */
  promptTokenBudget: number;
  /** How long an LLM answer is reused for an identical request in the same project; 0 = no cache. */
  cacheTtlMs: number;
  /** LLM answers cached per project. */
  cacheEntriesPerProject: number;
}

/** The semantic stage (EMBEDDINGS_*); undefined when EMBEDDINGS=off. */
export interface EmbeddingsConfig {
  /** An OpenAI-compatible endpoint when EMBEDDINGS_BASE_URL is set; else the embedded encoder. */
  endpoint: { baseUrl: string; apiKey: string | undefined; model: string } | undefined;
  /** Worker threads of the embedded encoder. */
  threads: number;
  /** Bytes of tool and query vectors kept over all projects. */
  cacheBytes: number;
  /** The share of a search's remaining time it may wait for a new list's tool vectors, 0–1 (default 0: never). */
  waitShare: number;
  /** The most a search waits for its request's vector, ms; undefined: the source's default (semantic-stage.ts). */
  queryWaitMs?: number | undefined;
  /** Tool texts queued for background embedding per project. */
  maxQueuedPerProject: number;
}

export interface RedisConfig {
  /** `redis://` or `rediss://` (TLS) URL, with user and password when the server wants them. */
  url: string;
  /** Longest wait for one Redis command; past it the search uses its in-process path. */
  commandTimeoutMs: number;
  /** Prefix of every key this service writes (several deployments can share one Redis). */
  keyPrefix: string;
}

export interface Config {
  host: string;
  port: number;
  logLevel: LogLevel;
  production: boolean;
  /** Undefined only outside production when no key is set: server.ts then makes a development key. */
  auth: AuthConfig | undefined;
  llm: LlmConfig | undefined;
  embeddings: EmbeddingsConfig | undefined;
  search: {
    /** Upper bound of a search's time budget; a client's X-Search-Deadline-Ms can only lower it. */
    deadlineMs: number;
    maxTools: number;
    maxQueryChars: number;
    maxContextChars: number;
    /** Longer descriptions are truncated for ranking (returned as sent). */
    maxDescriptionChars: number;
    /** Per-project rank caches kept (least recently used project dropped first). */
    cacheProjects: number;
    /** Tool analyses kept per project. */
    cacheToolsPerProject: number;
  };
  http: {
    bodyLimitBytes: number;
    requestTimeoutMs: number;
    headersTimeoutMs: number;
    keepAliveTimeoutMs: number;
  };
  /** Browser origins allowed to call the API (CORS); empty = no CORS headers at all. `*` allows any. */
  corsOrigins: readonly string[];
  /** Searches per project per minute; 0 disables rate limiting. */
  rateLimitPerMinute: number;
  /** What one project may use besides its request count (src/search/fair-share.ts); 0 disables a limit. */
  fairShare: {
    /** Searches being worked on at once per project (MAX_IN_FLIGHT_PER_PROJECT). */
    maxInFlight: number;
    /** Searches waiting at once per project, on a model or embeddings endpoint or for a work slot (MAX_WAITING_PER_PROJECT). */
    maxWaiting: number;
    /** Tools × sub-queries per project per minute (RATE_LIMIT_WORK_PER_MINUTE). */
    workPerMinute: number;
    /** Request bytes per project per minute (RATE_LIMIT_MB_PER_MINUTE). */
    bytesPerMinute: number;
  };
  /** The one byte budget of every cache (src/memory). */
  memory: {
    /** Bytes all caches may hold together (CACHE_MEMORY_MB). */
    cacheBytes: number;
    /** Largest part of it one project may hold, in (0, 1] (CACHE_PROJECT_SHARE). */
    projectShare: number;
  };
  /** The shared store of all replicas (REDIS_URL); undefined: every replica keeps its state in process. */
  redis: RedisConfig | undefined;
  /** Tool lists kept for `toolSet` references. */
  toolSets: {
    /** How long a list is kept after it was last sent in full. */
    ttlMs: number;
    /** In-process bytes for all projects' lists (least recently used first out). */
    cacheBytes: number;
  };
  /** Learning from use (POST /v1/catalog/feedback, src/feedback). */
  feedback: {
    /** FEEDBACK_LEARNING: off = no feedback routes, no search remembered, no learned ranking. */
    enabled: boolean;
    /** Evidence halves every this many ms (FEEDBACK_HALF_LIFE_DAYS). */
    halfLifeMs: number;
    /** A tool with n reports gets n / (n + this) of its learned boost (FEEDBACK_MIN_REPORTS). */
    priorReports: number;
    /** The largest learned boost, added to a tool's 0–1 relevance (FEEDBACK_MAX_BOOST). */
    maxBoost: number;
    /** Reports kept per project, newest (FEEDBACK_MAX_EVENTS). */
    maxEvents: number;
    /** How long a search is remembered for reports that name only its requestId (FEEDBACK_SEARCH_TTL_MS). */
    searchTtlMs: number;
    /** Largest report body, decompressed (FEEDBACK_MAX_BODY_BYTES). */
    maxBodyBytes: number;
  };
  /** Prometheus metrics (`GET /metrics`). */
  metrics: {
    enabled: boolean;
    path: string;
    /** Served on this port instead of the API port (keeps it off the public Service); undefined = API port. */
    port: number | undefined;
    host: string;
  };
  /** Serve the API reference (/docs) and the spec (/openapi.json, /openapi.yaml). */
  docs: { enabled: boolean };
  /** OpenTelemetry tracing (src/tracing); undefined (off) unless an OTLP endpoint is set. */
  tracing: TracingConfig | undefined;
  shutdown: {
    /** Time between SIGTERM (readiness turns 503) and closing the listener, for load balancers to notice. */
    delayMs: number;
    /** Hard limit for the whole shutdown; past it the process exits with an error. */
    timeoutMs: number;
  };
}

export interface TracingConfig {
  /** Where spans are POSTed (OTLP/HTTP JSON), e.g. http://collector:4318/v1/traces. */
  endpoint: string;
  serviceName: string;
}

export type Env = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const MB = 1024 * 1024;

export const UNASSIGNED_PROJECT_ID = 'UNASSIGNED_PROJECT_ID';

export function parseConfig(env: Env): Readonly<Config> {
  const problems: string[] = [];
  const read = new EnvReader(env, problems);
  const production = env.NODE_ENV === 'production';

  const config: Config = {
    host: read.string('HOST', '0.0.0.0'),
    port: read.integer('PORT', 8080, 0, 65_535),
    logLevel: read.oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
    production,
    auth: parseAuth(read, production, problems),
    llm: parseLlm(read, problems),
    embeddings: parseEmbeddings(read, problems),
    search: {
      deadlineMs: read.integer('SEARCH_DEADLINE_MS', 4000, 1, 120_000),
      maxTools: read.integer('MAX_TOOLS', 5000, 1, 100_000),
      // Hard limits in characters (code points); ranking reads only the first RANKED_QUERY_CHARS of a sub-query.
      maxQueryChars: read.integer('MAX_QUERY_CHARS', DEFAULT_MAX_QUERY_CHARS, 1, 1_000_000),
      maxContextChars: read.integer('MAX_CONTEXT_CHARS', DEFAULT_MAX_CONTEXT_CHARS, 0, 1_000_000),
      maxDescriptionChars: read.integer('MAX_DESCRIPTION_CHARS', DEFAULT_MAX_DESCRIPTION_CHARS, 1, 1_000_000),
      cacheProjects: read.integer('RANK_CACHE_PROJECTS', 64, 1, 100_000),
      cacheToolsPerProject: read.integer('RANK_CACHE_TOOLS_PER_PROJECT', 6000, 1, 1_000_000),
    },
    http: {
      bodyLimitBytes: read.integer('MAX_BODY_BYTES', 5 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      requestTimeoutMs: read.integer('REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000),
      headersTimeoutMs: read.integer('HEADERS_TIMEOUT_MS', 15_000, 1000, 600_000),
      keepAliveTimeoutMs: read.integer('KEEP_ALIVE_TIMEOUT_MS', 72_000, 1000, 600_000),
    },
    corsOrigins: parseCorsOrigins(read, problems),
    rateLimitPerMinute: read.integer('RATE_LIMIT_PER_MINUTE', 600, 0, 10_000_000),
    fairShare: {
      maxInFlight: read.integer('MAX_IN_FLIGHT_PER_PROJECT', 8, 0, 100_000),
      maxWaiting: read.integer('MAX_WAITING_PER_PROJECT', 32, 0, 100_000),
      workPerMinute: read.integer('RATE_LIMIT_WORK_PER_MINUTE', 600_000, 0, 1_000_000_000_000),
      bytesPerMinute: read.integer('RATE_LIMIT_MB_PER_MINUTE', 300, 0, 10_000_000) * MB,
    },
    memory: {
      cacheBytes: read.integer('CACHE_MEMORY_MB', 128, 8, 1_000_000) * MB,
      projectShare: read.decimal('CACHE_PROJECT_SHARE', 0.25, 0.01, 1),
    },
    redis: parseRedis(read, problems),
    toolSets: {
      ttlMs: read.integer('TOOL_SET_TTL_MS', 3_600_000, 1000, 7 * 86_400_000),
      cacheBytes: read.integer('TOOL_SET_CACHE_BYTES', 256 * 1024 * 1024, 0, 64 * 1024 * 1024 * 1024),
    },
    feedback: {
      enabled: read.boolean('FEEDBACK_LEARNING', true),
      halfLifeMs: read.decimal('FEEDBACK_HALF_LIFE_DAYS', 30, 0.001, 3650) * 86_400_000,
      // Tuned with the eval's simulation (docs/ranking.md, "Learning from use"): 3 and 1 reach +0.05
      // on MCPToolBench++ with ToolBench above 0; a prior of 1 report (cap 0.8) lost 0.011 on ToolBench.
      priorReports: read.decimal('FEEDBACK_MIN_REPORTS', 3, 0.1, 1000),
      maxBoost: read.decimal('FEEDBACK_MAX_BOOST', 1, 0, 2),
      maxEvents: read.integer('FEEDBACK_MAX_EVENTS', 5000, 1, 1_000_000),
      searchTtlMs: read.integer('FEEDBACK_SEARCH_TTL_MS', 900_000, 1000, 86_400_000),
      maxBodyBytes: read.integer('FEEDBACK_MAX_BODY_BYTES', 256 * 1024, 1024, 64 * MB),
    },
    metrics: parseMetrics(read, production, problems),
    docs: { enabled: read.boolean('DOCS_ENABLED', true) },
    tracing: parseTracing(read, problems),
    shutdown: {
      delayMs: read.integer('SHUTDOWN_DELAY_MS', 0, 0, 600_000),
      timeoutMs: read.integer('SHUTDOWN_TIMEOUT_MS', 20_000, 1000, 600_000),
    },
  };

  if (config.http.headersTimeoutMs > config.http.requestTimeoutMs) {
    // Node refuses such a server: the headers are part of the request.
    problems.push(`HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS (${config.http.requestTimeoutMs})`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(config);
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
  };
  return deepFreeze({ ...config, auth });
}

function parseAuth(read: EnvReader, production: boolean, problems: string[]): AuthConfig | undefined {
  const secret = read.untrimmed('AUTH_JWT_SECRET');
  const publicKey = read.optionalString('AUTH_JWT_PUBLIC_KEY');
  const jwksUrl = read.optionalString('AUTH_JWKS_URL');
  const issuers = read.list('AUTH_ISSUER');
  const audiences = read.list('AUTH_AUDIENCE');
  const projectClaim = read.string('AUTH_PROJECT_CLAIM', 'projectId');
  const clockToleranceSec = read.integer('AUTH_CLOCK_TOLERANCE_SEC', 30, 0, 600);
  const jwksCacheTtlSec = read.integer('AUTH_JWKS_CACHE_TTL_SEC', 300, 1, 86_400);
  const jwksMinRefetchMs = read.integer('AUTH_JWKS_MIN_REFETCH_MS', 1000, 0, 600_000);

  const given = [
    ['AUTH_JWT_SECRET', secret],
    ['AUTH_JWT_PUBLIC_KEY', publicKey],
    ['AUTH_JWKS_URL', jwksUrl],
  ].filter(([, value]) => value !== undefined);
  if (given.length > 1) {
    problems.push(`${given.map(([name]) => name).join(', ')}: set exactly one token key source, not ${given.length}`);
    return undefined;
  }
  if (given.length === 0) {
    if (production) {
      problems.push(
        'AUTH_JWT_SECRET, AUTH_JWT_PUBLIC_KEY or AUTH_JWKS_URL: one is required when NODE_ENV=production ' +
          '(the key that verifies the Router-issued bearer tokens)',
      );
    }
    return undefined;
  }

  let key: AuthKey | undefined;
  if (secret !== undefined) {
    // RFC 7518 §3.2: an HS256 key must be at least as long as the hash output (256 bits).
    if (Buffer.byteLength(secret) < 32) problems.push('AUTH_JWT_SECRET: must be at least 32 bytes long');
    else key = { kind: 'secret', secret, algorithms: HMAC_ALGORITHMS };
  } else if (publicKey !== undefined) {
    key = parsePublicKey(publicKey, problems);
  } else if (jwksUrl !== undefined) {
    if (!isHttpUrl(jwksUrl)) problems.push(`AUTH_JWKS_URL: must be an http(s) URL (got "${jwksUrl}")`);
    else key = {
      kind: 'jwks',
      url: jwksUrl,
      algorithms: ASYMMETRIC_ALGORITHMS,
      cacheTtlMs: jwksCacheTtlSec * 1000,
      minRefetchMs: jwksMinRefetchMs,
    };
  }
  if (!/^[A-Za-z0-9_.:-]{1,100}$/.test(projectClaim)) {
    problems.push(`AUTH_PROJECT_CLAIM: must be a claim name of letters, digits, "_.:-" (got "${projectClaim}")`);
  }
  return key === undefined
    ? undefined
    : { key, issuers, audiences, projectClaim, clockToleranceMs: clockToleranceSec * 1000 };
}

/** A PEM public key pins the algorithms to its type, so an HS token signed with the public key cannot pass. */
function parsePublicKey(value: string, problems: string[]): AuthKey | undefined {
  // Env files and secret stores often carry newlines as the two characters "\n".
  const pem = value.includes('\\n') ? value.replaceAll('\\n', '\n') : value;
  let keyObject: KeyObject;
  try {
    keyObject = createPublicKey(pem);
  } catch {
    problems.push('AUTH_JWT_PUBLIC_KEY: not a PEM public key (expected "-----BEGIN PUBLIC KEY-----")');
    return undefined;
  }
  const algorithms = algorithmsForKey(keyObject);
  if (algorithms === undefined) {
    problems.push(`AUTH_JWT_PUBLIC_KEY: unsupported key type "${keyObject.asymmetricKeyType}" (use RSA, EC P-256/384/521 or Ed25519)`);
    return undefined;
  }
  return { kind: 'public-key', pem: keyObject.export({ type: 'spki', format: 'pem' }).toString(), algorithms };
}

export function algorithmsForKey(key: KeyObject): readonly JwtAlgorithm[] | undefined {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return RSA_ALGORITHMS;
    case 'rsa-pss':
      return PSS_ALGORITHMS;
    case 'ed25519':
      return ['EdDSA'];
    case 'ec': {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      if (curve === 'prime256v1') return ['ES256'];
      if (curve === 'secp384r1') return ['ES384'];
      if (curve === 'secp521r1') return ['ES512'];
      return undefined;
    }
    default:
      return undefined;
  }
}

function parseLlm(read: EnvReader, problems: string[]): LlmConfig | undefined {
  const baseUrl = read.optionalString('LLM_BASE_URL');
  const apiKey = read.optionalString('LLM_API_KEY');
  const model = read.optionalString('LLM_MODEL');
  // Read even when the stage is off, so a bad value is reported rather than silently ignored.
  const promptTokenBudget = read.integer('LLM_PROMPT_TOKEN_BUDGET', 7000, 1000, 1_000_000);
  const cacheTtlMs = read.integer('LLM_CACHE_TTL_MS', 600_000, 0, 86_400_000);
  const cacheEntriesPerProject = read.integer('LLM_CACHE_ENTRIES_PER_PROJECT', 500, 1, 1_000_000);
  if (baseUrl === undefined && model === undefined) {
    if (apiKey !== undefined) problems.push('LLM_API_KEY: set LLM_BASE_URL and LLM_MODEL too, or unset it');
    return undefined;
  }
  let ok = true;
  if (baseUrl === undefined) {
    problems.push('LLM_BASE_URL: required when LLM_MODEL is set (an OpenAI-compatible endpoint, e.g. https://api.openai.com/v1)');
    ok = false;
  } else if (!isHttpUrl(baseUrl)) {
    problems.push(`LLM_BASE_URL: must be an http(s) URL (got "${baseUrl}")`);
    ok = false;
  }
  if (model === undefined) {
    problems.push('LLM_MODEL: required when LLM_BASE_URL is set');
    ok = false;
  }
  return ok ? { baseUrl: baseUrl!, apiKey, model: model!, promptTokenBudget, cacheTtlMs, cacheEntriesPerProject } : undefined;
}

function parseEmbeddings(read: EnvReader, problems: string[]): EmbeddingsConfig | undefined {
  const mode = read.oneOf('EMBEDDINGS', 'on', ['on', 'off'] as const);
  const baseUrl = read.optionalString('EMBEDDINGS_BASE_URL');
  const apiKey = read.optionalString('EMBEDDINGS_API_KEY');
  const model = read.optionalString('EMBEDDINGS_MODEL');
  const settings = {
    threads: read.integer('EMBEDDINGS_THREADS', 1, 1, 64),
    cacheBytes: read.integer('EMBEDDINGS_CACHE_MB', 128, 1, 1_000_000) * 1024 * 1024,
    // 0: no search waits for a new list's tool vectors (15 % on main cost every search of a new
    // 1,000-tool list ~600 ms for half a minute: p50 646 ms instead of 33 ms).
    waitShare: read.integer('EMBEDDINGS_WAIT_PERCENT', 0, 0, 100) / 100,
    queryWaitMs: read.optionalString('EMBEDDINGS_QUERY_WAIT_MS') === undefined ? undefined : read.integer('EMBEDDINGS_QUERY_WAIT_MS', 0, 0, 60_000),
    maxQueuedPerProject: read.integer('EMBEDDINGS_QUEUE_PER_PROJECT', 5000, 1, 1_000_000),
  };
  if (baseUrl === undefined && model === undefined) {
    if (apiKey !== undefined) problems.push('EMBEDDINGS_API_KEY: set EMBEDDINGS_BASE_URL and EMBEDDINGS_MODEL too, or unset it');
    return mode === 'off' ? undefined : { endpoint: undefined, ...settings };
  }
  let ok = true;
  if (baseUrl === undefined) {
    problems.push('EMBEDDINGS_BASE_URL: required when EMBEDDINGS_MODEL is set (an OpenAI-compatible endpoint, e.g. https://api.openai.com/v1)');
    ok = false;
  } else if (!isHttpUrl(baseUrl)) {
    problems.push(`EMBEDDINGS_BASE_URL: must be an http(s) URL (got "${baseUrl}")`);
    ok = false;
  }
  if (model === undefined) {
    problems.push('EMBEDDINGS_MODEL: required when EMBEDDINGS_BASE_URL is set');
    ok = false;
  }
  if (!ok || mode === 'off') return undefined;
  return { endpoint: { baseUrl: baseUrl!, apiKey, model: model! }, ...settings };
}

function parseRedis(read: EnvReader, problems: string[]): RedisConfig | undefined {
  const url = read.optionalString('REDIS_URL');
  const commandTimeoutMs = read.integer('REDIS_TIMEOUT_MS', 100, 1, 60_000);
  const keyPrefix = read.string('REDIS_KEY_PREFIX', 'catalog-search:');
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
  return { url, commandTimeoutMs, keyPrefix };
}

/**
 * Metrics are on by default, except in production without METRICS_PORT: there they would be served on
 * the public API port without authentication (an attack run read them so), so they are off unless
 * METRICS_ENABLED=true says to serve them there.
 */
function parseMetrics(read: EnvReader, production: boolean, problems: string[]): Config['metrics'] {
  const portText = read.optionalString('METRICS_PORT');
  const port = portText === undefined ? undefined : read.integer('METRICS_PORT', 0, 1, 65_535);
  const enabled = read.boolean('METRICS_ENABLED', !production || port !== undefined);
  const path = read.string('METRICS_PATH', '/metrics');
  const host = read.string('METRICS_HOST', '0.0.0.0');
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
  const serviceName = read.string('OTEL_SERVICE_NAME', 'catalog-search');
  if (read.boolean('OTEL_SDK_DISABLED', false)) return undefined;
  const traces = read.optionalString('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = read.optionalString('OTEL_EXPORTER_OTLP_ENDPOINT');
  const [name, value] = traces !== undefined ? ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', traces] : ['OTEL_EXPORTER_OTLP_ENDPOINT', base];
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

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Reads variables and records a problem per bad one, so that all are reported together. */
class EnvReader {
  constructor(
    private readonly env: Env,
    private readonly problems: string[],
  ) {}

  /** Unset and empty (after trimming) both mean "not set": `FOO=` in an env file is a common way to unset. */
  optionalString(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  /** For secrets: used byte for byte (whitespace may be part of a secret); empty still means unset. */
  untrimmed(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value;
  }

  string(name: string, fallback: string): string {
    return this.optionalString(name) ?? fallback;
  }

  list(name: string): string[] {
    const value = this.optionalString(name);
    return value === undefined ? [] : value.split(',').map((item) => item.trim()).filter(Boolean);
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const value = this.optionalString(name);
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name}: must be an integer from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return Number(value);
  }

  /** A decimal number such as 0.25. */
  decimal(name: string, fallback: number, min: number, max: number): number {
    const value = this.optionalString(name);
    if (value === undefined) return fallback;
    if (!/^\d+(\.\d+)?$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name}: must be a number from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return Number(value);
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.optionalString(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
    this.problems.push(`${name}: must be true or false (got "${value}")`);
    return fallback;
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const value = this.optionalString(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${name}: must be one of ${allowed.join(', ')} (got "${value}")`);
      return fallback;
    }
    return value as T;
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
