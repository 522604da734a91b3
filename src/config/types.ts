// The configuration's shape: what parse.ts builds from the environment (one frozen object, read
// everywhere as `Config`). Field comments name the variable behind each value (variables.ts).
import type { VARIABLES } from './variables.js';

export type LogLevel = (typeof VARIABLES)['LOG_LEVEL']['allowed'][number];

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
  | 'HS256'
  | 'HS384'
  | 'HS512'
  | 'RS256'
  | 'RS384'
  | 'RS512'
  | 'PS256'
  | 'PS384'
  | 'PS512'
  | 'ES256'
  | 'ES384'
  | 'ES512'
  | 'EdDSA';

export interface AuthConfig {
  key: AuthKey;
  /** Accepted `iss` values; empty = not checked. */
  issuers: readonly string[];
  /** Accepted `aud` values; empty = not checked. */
  audiences: readonly string[];
  /** The claim that names the tenant (project). */
  projectClaim: string;
  clockToleranceMs: number;
  /** Set only by withDevelopmentKey: the key is the development server's own (the playground may mint with it). */
  development?: true;
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

/** The semantic stage (EMBEDDINGS_*); undefined when it is off (the default without an endpoint). */
export interface EmbeddingsConfig {
  /** An OpenAI-compatible endpoint when EMBEDDINGS_BASE_URL is set; else the embedded encoder. */
  endpoint:
    | {
        baseUrl: string;
        apiKey: string | undefined;
        model: string;
        /** Unicode script names its model reads (EMBEDDINGS_SCRIPTS); undefined: every script. */
        scripts?: string[] | undefined;
      }
    | undefined;
  /** Worker threads of the embedded encoder's query lane. */
  threads: number;
  /** Nice value of the embedded encoder's background lane (lists). */
  backgroundNice: number;
  /** Bytes of tool and query vectors kept over all projects. */
  cacheBytes: number;
  /** The share of a search's remaining time it may wait for a new list's tool vectors, 0–1 (default 0: never). */
  waitShare: number;
  /** The most a search waits for its request's vector, ms; undefined: the source's default (vector-provider.ts). */
  queryWaitMs?: number | undefined;
  /** Tool texts queued for background embedding per project. */
  maxQueuedPerProject: number;
}

export interface RedisConfig {
  /** `redis://` or `rediss://` (TLS) URL, with user and password when the server wants them. */
  url: string;
  /** Longest wait for a cache's Redis command (REDIS_TIMEOUT_MS); past it the search uses its in-process path. */
  commandTimeoutMs: number;
  /**
   * Longest wait for shared state: rate limit, tool sets, LLM answers, feedback (REDIS_STATE_TIMEOUT_MS;
   * parsed config always has it; a config built by hand without it waits commandTimeoutMs for all).
   */
  stateTimeoutMs?: number | undefined;
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
  /** What one project may use besides its request count (src/fairness/fair-share.ts); 0 disables a limit. */
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
  /** Learning from use (POST /v1/catalog/feedback, src/learning). */
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
    /** Shared learning across projects (LEARNING_SHARED*, src/learning/shared/shared-learning.ts). */
    shared: {
      enabled: boolean;
      /** Distinct projects an association needs before it is used for anyone (LEARNING_SHARED_MIN_PROJECTS). */
      minProjects: number;
      /** Each association's keyed threshold lies in k + 1 … k + this (LEARNING_SHARED_THRESHOLD_SPREAD). */
      thresholdSpread: number;
      /** Associations kept for the whole deployment (LEARNING_SHARED_MAX_ASSOCIATIONS). */
      maxAssociations: number;
      /**
       * Who and what may add to the shared model (docs/privacy.md, threat model). Absent (tests of k
       * alone): every project counts from its first report, an association from its threshold on.
       */
      admission?: SharedAdmission;
      /** Projects' says kept for the whole deployment (LEARNING_SHARED_MAX_SAYS); absent: no bound but each project's. */
      maxSays?: number;
    };
    /** Key of the terms' keyed hashes (LEARNING_SECRET); undefined: derived (term-keys.ts). */
    secret: string | undefined;
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
  /** Serve /playground (PLAYGROUND; off by default in production). */
  playground: { enabled: boolean };
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

/** What a project and an association must show before shared learning uses them (LEARNING_SHARED_*). */
export interface SharedAdmission {
  /** Distinct days (UTC) with reports before a project's reports count (LEARNING_SHARED_MIN_PROJECT_DAYS). */
  minDays: number;
  /** Time since a project's first report before its reports count (LEARNING_SHARED_MIN_PROJECT_AGE_HOURS). */
  minAgeMs: number;
  /** How long an association's threshold must hold unbroken before it is used (LEARNING_SHARED_HOLD_MINUTES). */
  holdMs: number;
  /** Associations that may become usable per hour, deployment-wide (LEARNING_SHARED_NEW_PER_HOUR). */
  newPerHour: number;
}
