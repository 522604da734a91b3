// Every environment variable the service reads, in one table: the parser takes each default and bound
// from here (env-reader.ts), and `npm run config:docs` writes docs/configuration.md's tables and
// .env.example from it, so the three cannot disagree (test/config/variables.test.ts checks both files).
// Rules that tie variables together (one key source, LLM_* together, …) are code in parse.ts and auth.ts.
import {
  DEFAULT_MAX_CONTEXT_CHARS,
  DEFAULT_MAX_DESCRIPTION_CHARS,
  DEFAULT_MAX_QUERY_CHARS,
} from '@catalog-search/core';

export type VariableKind = 'integer' | 'decimal' | 'boolean' | 'one-of' | 'string' | 'secret' | 'list';

interface VariableBase {
  section: SectionId;
  /** One line of Markdown: docs/configuration.md's "Meaning", and .env.example's comment. */
  description: string;
  /** Docs only, when the default depends on other variables. */
  defaultNote?: string;
  /** Shown as `# e.g. NAME=example` in .env.example when there is no default. */
  example?: string;
  /** Left uncommented in .env.example (the one variable a deployment must fill in). */
  fillIn?: boolean;
}

interface NumberVariable extends VariableBase {
  kind: 'integer' | 'decimal';
  /** Absent: unset means "not configured" (the parser decides what that means). */
  default?: number;
  min: number;
  max: number;
}
interface BooleanVariable extends VariableBase {
  kind: 'boolean';
  default: boolean;
}
interface OneOfVariable extends VariableBase {
  kind: 'one-of';
  default: string;
  allowed: readonly string[];
}
/** `string` is trimmed; `secret` is used byte for byte; `list` is comma-separated. */
interface TextVariable extends VariableBase {
  kind: 'string' | 'secret' | 'list';
  default?: string;
  /** What a valid value looks like (checked in parse.ts / auth.ts), for the docs. */
  format?: string;
}

export type Variable = NumberVariable | BooleanVariable | OneOfVariable | TextVariable;

/** Sections in the order the docs and .env.example show them. */
export const SECTIONS = {
  server: { title: 'Server', intro: 'Listen address, logging and shutdown.' },
  auth: {
    title: 'Authentication',
    intro:
      'The key that verifies the Router-issued bearer JWTs: exactly one of the three key sources (required in production).',
  },
  llm: {
    title: 'LLM rerank',
    intro:
      'Any OpenAI-compatible endpoint; `LLM_BASE_URL` and `LLM_MODEL` together turn the rerank stage on. Unset: lexical BM25F ranking only.',
  },
  embeddings: {
    title: 'Semantic stage',
    intro:
      "Sentence embeddings fused with the lexical ranking: an embeddings endpoint (`EMBEDDINGS_BASE_URL`, on once set), or the embedded encoder (Universal Sentence Encoder lite, shipped in node_modules, run in worker threads) with `EMBEDDINGS=on`. The embedded encoder is opt-in: a search with a new request waits for its vector (at most `EMBEDDINGS_QUERY_WAIT_MS`), a replica holds the model in memory, and each new tool list costs encoder CPU (at a low priority); in return ranking improves, and more of the right tools reach the LLM stage's candidates. Turn it on where that is worth the memory and the wait, or use an endpoint. What it costs and gives: [performance](performance.md#the-semantic-stages-default-opt-in).",
  },
  search: {
    title: 'Search limits',
    intro: 'The time budget and the size limits of one search, and the per-project rank caches.',
  },
  fairShare: {
    title: 'Rate limits and fair share',
    intro:
      'What one project may use: searches per minute, and besides its request count its work, bytes and searches at once (`0` disables each).',
  },
  memory: { title: 'Cache memory', intro: 'One byte budget for every cache the service keeps, fair across projects.' },
  sharedState: {
    title: 'Shared state of several replicas',
    intro: 'Redis, optional: unset, each process keeps its own state. Tool lists kept for `toolSet` references.',
  },
  feedback: {
    title: 'Learning from use',
    intro:
      "Reports sent to `POST`/`DELETE /v1/catalog/feedback` teach a project's ranking (the learned boost); see [api](api.md).",
  },
  metrics: { title: 'Metrics', intro: 'Prometheus text format.' },
  tracing: {
    title: 'Tracing',
    intro:
      'OpenTelemetry tracing, off unless an OTLP endpoint is set (the standard OpenTelemetry variables; spans and attributes in [operations](operations.md#traces-and-logs)).',
  },
  http: { title: 'HTTP', intro: 'Request bodies, timeouts and CORS.' },
  docs: {
    title: 'API reference and playground',
    intro: 'The API reference, the OpenAPI document and the playground page.',
  },
} as const;

export type SectionId = keyof typeof SECTIONS;

const MiB = 1024 * 1024;

export const VARIABLES = {
  // ---- server ----
  HOST: {
    section: 'server',
    kind: 'string',
    default: '127.0.0.1',
    defaultNote: '`127.0.0.1`, but `0.0.0.0` in production',
    description:
      'Listen address: loopback only outside production (a development server is not reachable from the network), every interface in production. The image, docker-compose.yml and the Deployment set `0.0.0.0` (compose publishes elsewhere with `CATALOG_SEARCH_BIND`).',
  },
  PORT: {
    section: 'server',
    kind: 'integer',
    default: 8080,
    min: 0,
    max: 65_535,
    description:
      'Listen port. docker-compose.yml fixes it inside the container (publish elsewhere with `CATALOG_SEARCH_PORT`).',
  },
  LOG_LEVEL: {
    section: 'server',
    kind: 'one-of',
    default: 'info',
    allowed: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    description: 'Log level. Audit lines are `info`.',
  },
  NODE_ENV: {
    section: 'server',
    kind: 'string',
    example: 'production',
    description:
      '`production` requires a key (no development key) and keeps metrics off the API port. The container image sets it.',
  },
  SHUTDOWN_DELAY_MS: {
    section: 'server',
    kind: 'integer',
    default: 0,
    min: 0,
    max: 600_000,
    description:
      'After SIGTERM, how long `/readyz` fails before the listener closes (give load balancers time, e.g. 5000 on Kubernetes).',
  },
  SHUTDOWN_TIMEOUT_MS: {
    section: 'server',
    kind: 'integer',
    default: 20_000,
    min: 1000,
    max: 600_000,
    description: 'Hard limit for a graceful shutdown; past it the process exits with code 1.',
  },

  // ---- auth ----
  AUTH_JWT_SECRET: {
    section: 'auth',
    kind: 'secret',
    format: '≥ 32 bytes',
    fillIn: true,
    description:
      'HS256/384/512 shared secret, at least 32 bytes (e.g. `openssl rand -base64 48`). One of the three key sources.',
  },
  AUTH_JWT_PUBLIC_KEY: {
    section: 'auth',
    kind: 'string',
    format: 'PEM public key',
    description: 'PEM public key (RSA, EC P-256/384/521 or Ed25519); newlines may be written as `\\n`.',
  },
  AUTH_JWKS_URL: {
    section: 'auth',
    kind: 'string',
    format: 'http(s) URL',
    example: 'https://router.example.com/.well-known/jwks.json',
    description: 'http(s) URL of a JWKS document.',
  },
  AUTH_ISSUER: {
    section: 'auth',
    kind: 'list',
    description: 'Accepted `iss` values; when set, `iss` is required (unset: not checked).',
  },
  AUTH_AUDIENCE: {
    section: 'auth',
    kind: 'list',
    description: 'Accepted `aud` values; when set, `aud` is required (unset: not checked).',
  },
  AUTH_PROJECT_CLAIM: {
    section: 'auth',
    kind: 'string',
    default: 'projectId',
    format: 'letters, digits, `_.:-`',
    description: 'The claim naming the project (tenant); `X-Project-Id`, when sent, must equal it.',
  },
  AUTH_CLOCK_TOLERANCE_SEC: {
    section: 'auth',
    kind: 'integer',
    default: 30,
    min: 0,
    max: 600,
    description: 'Allowed clock skew for `exp`/`nbf`.',
  },
  AUTH_JWKS_CACHE_TTL_SEC: {
    section: 'auth',
    kind: 'integer',
    default: 300,
    min: 1,
    max: 86_400,
    description: 'How often the JWKS is refetched (in the background; the last good set keeps serving).',
  },
  AUTH_JWKS_MIN_REFETCH_MS: {
    section: 'auth',
    kind: 'integer',
    default: 1000,
    min: 0,
    max: 600_000,
    description:
      'Least time between JWKS refetches caused by unknown `kid`s (unknown kids in between get 401), and between retries after a failed fetch.',
  },

  // ---- llm ----
  LLM_BASE_URL: {
    section: 'llm',
    kind: 'string',
    format: 'http(s) URL',
    example: 'https://api.openai.com/v1',
    description: 'OpenAI-compatible endpoint; with `LLM_MODEL` it enables the rerank stage.',
  },
  LLM_MODEL: {
    section: 'llm',
    kind: 'string',
    example: 'gpt-4o-mini',
    description:
      'Model name; required with `LLM_BASE_URL`. Unset: BM25-only (logged at start; `meta.ranker` is `bm25`, no `degraded`).',
  },
  LLM_API_KEY: {
    section: 'llm',
    kind: 'string',
    description: 'API key for that endpoint (optional for local servers).',
  },
  LLM_PROMPT_TOKEN_BUDGET: {
    section: 'llm',
    kind: 'integer',
    default: 7000,
    min: 1000,
    max: 1_000_000,
    description: 'Most prompt tokens (o200k) for the rerank prompt; chooses how many candidates the model sees.',
  },
  LLM_CACHE_TTL_MS: {
    section: 'llm',
    kind: 'integer',
    default: 600_000,
    min: 0,
    max: 86_400_000,
    description: 'How long an LLM answer is reused for an identical request in the same project; `0` disables.',
  },
  LLM_CACHE_ENTRIES_PER_PROJECT: {
    section: 'llm',
    kind: 'integer',
    default: 500,
    min: 1,
    max: 1_000_000,
    description: 'LLM answers cached per project.',
  },

  // ---- embeddings ----
  EMBEDDINGS: {
    section: 'embeddings',
    kind: 'one-of',
    default: 'off',
    defaultNote: '`on` when `EMBEDDINGS_BASE_URL` is set, else `off`',
    allowed: ['on', 'off'],
    description:
      '`on`: the semantic stage runs, with the embeddings endpoint when `EMBEDDINGS_BASE_URL` is set, else with the embedded encoder (nothing to download). `off`: searches rank by words only (`meta.semantic: "off"`). Startup logs name the active source. The embedded encoder loads its model in the background after the start (never failing it, however slow the host): meanwhile searches rank by words (`meta.semantic: "pending"`) and `/readyz` answers 503 `STARTING`.',
  },
  EMBEDDINGS_BASE_URL: {
    section: 'embeddings',
    kind: 'string',
    format: 'http(s) URL',
    example: 'https://api.openai.com/v1',
    description:
      'OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Azure, vLLM, TEI, Ollama, LiteLLM); with `EMBEDDINGS_MODEL` it turns the semantic stage on with that model. Unset: `EMBEDDINGS=on` runs the embedded encoder (Universal Sentence Encoder lite, in worker threads; nothing to download).',
  },
  EMBEDDINGS_MODEL: {
    section: 'embeddings',
    kind: 'string',
    example: 'text-embedding-3-small',
    description: 'Model name; required with `EMBEDDINGS_BASE_URL`. Part of every vector cache key.',
  },
  EMBEDDINGS_SCRIPTS: {
    section: 'embeddings',
    kind: 'list',
    example: 'Latin,Cyrillic',
    description:
      "The writing systems the endpoint's model reads, as Unicode script names (`Latin`, `Cyrillic`, `Greek`, `Han`, `Hiragana`, `Katakana`, `Hangul`, `Arabic`, …). A request with less than half of its letters in them is not embedded: it gets no match by meaning (an encoder that cannot read a request finds noise), only its word matches. Unset: every script (multilingual models such as OpenAI's `text-embedding-3-*`, `bge-m3`, `multilingual-e5`). Only with an endpoint: the embedded encoder reads Latin script (its vocabulary is English).",
  },
  EMBEDDINGS_API_KEY: {
    section: 'embeddings',
    kind: 'string',
    description: 'API key for that endpoint (optional for local servers).',
  },
  EMBEDDINGS_THREADS: {
    section: 'embeddings',
    kind: 'integer',
    default: 1,
    min: 1,
    max: 64,
    description:
      "Worker threads of the embedded encoder's query lane, which embeds searches' requests. Tool lists are embedded by one more thread, at a lower OS priority (`EMBEDDINGS_BACKGROUND_NICE`), so that a new list uses the CPU searches leave idle. Each thread holds its own copy of the model ([capacity](capacity.md#memory-per-warm-project-and-redis-per-project)).",
  },
  EMBEDDINGS_BACKGROUND_NICE: {
    section: 'embeddings',
    kind: 'integer',
    default: 10,
    min: 0,
    max: 19,
    description:
      "The OS priority (Linux nice value) of the embedded encoder's background lane, which embeds new tool lists. At 10 a list is embedded with the CPU searches leave idle: a new 1,000-tool list's searches cost what they cost with the stage off, and on a machine kept busy by other work the list waits. `0`: lists embed at the searches' priority (sooner on a busy machine; searches slow while they do). Ignored where a thread's priority cannot be set (not Linux).",
  },
  EMBEDDINGS_CACHE_MB: {
    section: 'embeddings',
    kind: 'integer',
    default: 128,
    min: 1,
    max: 1_000_000,
    description:
      'Most bytes of tool and query vectors over all projects (~2.2 KB per 512-dimension vector). Vectors are entries of the `CACHE_MEMORY_MB` budget, fair across projects; set this below it only to keep vectors from crowding out the other caches (then the least recently used vectors go first, whichever project they belong to).',
  },
  EMBEDDINGS_WAIT_PERCENT: {
    section: 'embeddings',
    kind: 'integer',
    default: 0,
    min: 0,
    max: 100,
    description:
      "The share of a search's remaining deadline it may wait for a new list's tool vectors. `0`: no search waits for them: a list's first searches rank lexically at lexical speed while its tools are embedded in the background, and its next searches fuse what is ready. Above `0`, a new list's first searches wait for its tools to be embedded, which takes seconds for a large list.",
  },
  EMBEDDINGS_QUERY_WAIT_MS: {
    section: 'embeddings',
    kind: 'integer',
    min: 0,
    max: 60_000,
    defaultNote: '`60` (embedded encoder), `250` (endpoint)',
    description:
      'The most a search waits for its request\'s vector (a request seen before costs nothing: its vector is cached). Not ready in time: the search answers lexically (`meta.semantic: "timeout"`), and the vector, once made, serves the next search of that request. Never more than half of the search\'s remaining deadline. Unset: 60 with the embedded encoder, 250 with an endpoint.',
  },
  EMBEDDINGS_QUEUE_PER_PROJECT: {
    section: 'embeddings',
    kind: 'integer',
    default: 5000,
    min: 1,
    max: 1_000_000,
    description:
      'Tool texts waiting for background embedding per project (8× that over all projects; when that is full, a project below an equal share takes the newest texts of projects above it); more are queued by later searches.',
  },

  // ---- search ----
  SEARCH_DEADLINE_MS: {
    section: 'search',
    kind: 'integer',
    default: 4000,
    min: 1,
    max: 120_000,
    description: "Upper bound of a search's time budget; a client's `X-Search-Deadline-Ms` can only lower it.",
  },
  MAX_TOOLS: {
    section: 'search',
    kind: 'integer',
    default: 5000,
    min: 1,
    max: 100_000,
    description: 'Most tools per request (413 `TOO_MANY_TOOLS` above).',
  },
  // The three text limits default to core's constants, which the client applies too.
  MAX_QUERY_CHARS: {
    section: 'search',
    kind: 'integer',
    default: DEFAULT_MAX_QUERY_CHARS,
    min: 1,
    max: 1_000_000,
    description:
      'Longest query item in characters (code points; 400 above). A hard limit only: ranking reads the first 2,000 characters of each item. At most 16 items (fixed by the API).',
  },
  MAX_CONTEXT_CHARS: {
    section: 'search',
    kind: 'integer',
    default: DEFAULT_MAX_CONTEXT_CHARS,
    min: 0,
    max: 1_000_000,
    description:
      'Longest `context` in characters (code points; 400 above). The LLM prompt takes what fits `LLM_PROMPT_TOKEN_BUDGET`.',
  },
  MAX_DESCRIPTION_CHARS: {
    section: 'search',
    kind: 'integer',
    default: DEFAULT_MAX_DESCRIPTION_CHARS,
    min: 1,
    max: 1_000_000,
    description: 'Descriptions are truncated to this for ranking; returned as sent.',
  },
  RANK_CACHE_PROJECTS: {
    section: 'search',
    kind: 'integer',
    default: 64,
    min: 1,
    max: 100_000,
    description: 'Projects whose rank caches are kept (least recently active dropped first).',
  },
  RANK_CACHE_TOOLS_PER_PROJECT: {
    section: 'search',
    kind: 'integer',
    default: 6000,
    min: 1,
    max: 1_000_000,
    description: 'Tool analyses cached per project.',
  },

  // ---- fairShare ----
  RATE_LIMIT_PER_MINUTE: {
    section: 'fairShare',
    kind: 'integer',
    default: 600,
    min: 0,
    max: 10_000_000,
    description:
      'Searches per project per minute; `0` disables. Buckets are shared by all replicas with `REDIS_URL`, else per process.',
  },
  MAX_IN_FLIGHT_PER_PROJECT: {
    section: 'fairShare',
    kind: 'integer',
    default: 8,
    min: 0,
    max: 100_000,
    description:
      'Searches one project may have worked on at once (body read, parsed, filtered, ranked); a further search waits for a slot until its deadline (then 429 `RATE_LIMITED`), and a search waiting on the model or an embeddings endpoint gives up its slot. `0` disables.',
  },
  MAX_WAITING_PER_PROJECT: {
    section: 'fairShare',
    kind: 'integer',
    default: 32,
    min: 0,
    max: 100_000,
    description:
      'Searches one project may have waiting at once besides those: on the model or an embeddings endpoint, or for a work slot (429 `RATE_LIMITED` above). Waiting costs no CPU, but each waiting search holds its parsed request (up to `MAX_BODY_BYTES` of JSON). `0`: no search waits (searches waiting on the model then keep their work slot).',
  },
  RATE_LIMIT_WORK_PER_MINUTE: {
    section: 'fairShare',
    kind: 'integer',
    default: 600_000,
    min: 0,
    max: 1_000_000_000_000,
    description:
      'Search work per project per minute, in units of CPU time (320 a millisecond): a search is charged tools × sub-queries when it is validated (a 1,000-tool, 3-query search is 3,000, about what ranking English costs), then what its ranking and its `filter.tools` rules took in CPU time, measured (16 × 2,000 Japanese characters over one tool cost ~60,000, English of that size ~6,000); feedback reports have a budget of their own of this size, charged for the request text they send. A budget that refills steadily and holds 10 s of it, so a quiet project may burst. A search is admitted while budget is left; `0` disables. See [performance](performance.md#fair-sharing-between-projects).',
  },
  RATE_LIMIT_MB_PER_MINUTE: {
    section: 'fairShare',
    kind: 'integer',
    default: 300,
    min: 0,
    max: 10_000_000,
    description:
      'Request bytes per project per minute: Content-Length charged before the body is read, then any bytes past it as the (decompressed) body is read; same budget rules; `0` disables.',
  },

  // ---- memory ----
  CACHE_MEMORY_MB: {
    section: 'memory',
    kind: 'integer',
    default: 128,
    min: 8,
    max: 1_000_000,
    description:
      'One byte budget for every cache the service keeps (rank caches, candidate lines, LLM answers, …), keys included; see [operations](operations.md#memory).',
  },
  CACHE_PROJECT_SHARE: {
    section: 'memory',
    kind: 'decimal',
    default: 0.25,
    min: 0.01,
    max: 1,
    description:
      'Largest part of `CACHE_MEMORY_MB` one project may hold. When the whole budget is full the largest projects are trimmed first.',
  },

  // ---- sharedState ----
  REDIS_URL: {
    section: 'sharedState',
    kind: 'string',
    format: '`redis://` or `rediss://` URL',
    example: 'redis://redis:6379',
    description:
      "Redis URL (`rediss://` for TLS), user and password in the URL when needed. Replicas then share rate-limit buckets, LLM answers, tool sets, the semantic stage's vectors and what projects taught by their reports (feedback). Unset: all state in process. Never required: see [operations](operations.md#redis). docker-compose.yml sets it to its own redis service unless `REDIS_URL` is set in the shell.",
  },
  REDIS_TIMEOUT_MS: {
    section: 'sharedState',
    kind: 'integer',
    default: 100,
    min: 1,
    max: 60_000,
    description:
      "Longest wait for a Redis command whose miss costs only some work here (the semantic stage's vectors); past it " +
      'the search goes on with its in-process state. What makes the replicas one service waits `REDIS_STATE_TIMEOUT_MS`.',
  },
  REDIS_STATE_TIMEOUT_MS: {
    section: 'sharedState',
    kind: 'integer',
    default: 1000,
    min: 1,
    max: 60_000,
    description:
      'Longest wait for a Redis command whose miss a caller would see: the shared rate limit, tool sets, LLM answers and ' +
      'feedback. Past it the search goes on with this replica\'s state and says so (`meta.sharedState: "local"`; the ' +
      'rate limit then counts each admitted search once per replica, so replicas never admit more than the limit ' +
      'together), and a feedback report is refused (503 with `Retry-After`, so the client resends it) rather than ' +
      'answered 202 unstored. A search waits at most its deadline for a model answer.',
  },
  REDIS_KEY_PREFIX: {
    section: 'sharedState',
    kind: 'string',
    default: 'catalog-search:',
    description: 'Prefix of every key written (several deployments can share one Redis).',
  },
  TOOL_SET_TTL_MS: {
    section: 'sharedState',
    kind: 'integer',
    default: 3_600_000,
    min: 1000,
    max: 7 * 86_400_000,
    description: 'How long a tool list sent in full can be referred to by `toolSet` (in process and in Redis).',
  },
  TOOL_SET_CACHE_BYTES: {
    section: 'sharedState',
    kind: 'integer',
    default: 256 * MiB,
    min: 0,
    max: 64 * 1024 * MiB,
    defaultNote: '`268435456` (256 MiB)',
    description:
      'Bytes (estimated) of tool lists kept in process for all projects at most; the lists are entries of the cache budget (`CACHE_MEMORY_MB`, per-project share), which usually binds first; least recently used out first; `0` keeps none in process (Redis only, if set).',
  },

  // ---- feedback ----
  FEEDBACK_LEARNING: {
    section: 'feedback',
    kind: 'boolean',
    default: true,
    description:
      'Learning from use: `POST`/`DELETE /v1/catalog/feedback`, searches remembered by requestId, and the learned boost. `false`: the routes answer 404 and every search ranks as without reports.',
  },
  // Chosen against poisoning: a burst of fake reports fades in weeks, honest use that repeats weekly
  // keeps half its lift or more. Why this value: docs/ranking.md#poisoning-threat-model-and-guards
  FEEDBACK_HALF_LIFE_DAYS: {
    section: 'feedback',
    kind: 'decimal',
    default: 14,
    min: 0.001,
    max: 3650,
    description:
      "A report's weight halves every this many days; reports older than 8 half-lives are dropped (from a project's log in Redis at its next report: the log has no TTL, it is durable).",
  },
  // Tuned with the eval's simulation of reports. Why this value: docs/ranking.md#learning-from-use
  FEEDBACK_MIN_REPORTS: {
    section: 'feedback',
    kind: 'decimal',
    default: 3,
    min: 0.1,
    max: 1000,
    description:
      'Shrinkage: a tool that served n (decayed) distinct searches gets n / (n + this) of its boost (n / (n + 4 × this) when its list marks it `destructiveHint: true`), so a single search moves it a quarter as far as many; repeated reports of one search count once.',
  },
  // The lowest cap that keeps the eval's gains: a learned tool cannot pass a lexical lead of 0.9.
  // Why this value: docs/ranking.md#poisoning-threat-model-and-guards
  FEEDBACK_MAX_BOOST: {
    section: 'feedback',
    kind: 'decimal',
    default: 0.9,
    min: 0,
    max: 2,
    description: "The largest boost past use adds to a tool's 0–1 relevance (0 learns but raises nothing).",
  },
  FEEDBACK_MAX_EVENTS: {
    section: 'feedback',
    kind: 'integer',
    default: 5000,
    min: 1,
    max: 1_000_000,
    description:
      'Reports kept per project, newest first (each at most 32 words: ~150 bytes in Redis for a 12-word request, at most ~2 KB), in process and in Redis.',
  },
  FEEDBACK_SEARCH_TTL_MS: {
    section: 'feedback',
    kind: 'integer',
    default: 900_000,
    min: 1000,
    max: 86_400_000,
    description:
      'How long a search is remembered so a report can name just its `requestId` (its words, ~0.2–2 KB; in process the newest 2,000 of a project, in Redis all of them: at most `RATE_LIMIT_PER_MINUTE` × this a project).',
  },
  FEEDBACK_MAX_BODY_BYTES: {
    section: 'feedback',
    kind: 'integer',
    default: 256 * 1024,
    min: 1024,
    max: 64 * MiB,
    defaultNote: '`262144` (256 KiB)',
    description: 'Largest feedback request body, decompressed (then 413).',
  },

  LEARNING_SHARED: {
    section: 'feedback',
    kind: 'boolean',
    default: false,
    description:
      "Shared learning across projects: a (request word, tool) association that more than `LEARNING_SHARED_MIN_PROJECTS` distinct projects reported (at its keyed threshold, from projects with a history) raises that tool for every project's similar requests, more weakly than its own reports; a tool that many more projects used than the list's other tools is raised a little for requests on its server (a common step, such as a login). Words and tools are shared only as keyed hashes; see [privacy](privacy.md). Off: nothing one project reports is used for another.",
  },
  LEARNING_SHARED_MIN_PROJECTS: {
    section: 'feedback',
    kind: 'integer',
    default: 5,
    min: 1,
    max: 1000,
    description:
      'k-anonymity of shared learning: an association is used for other projects only once more than this many distinct projects (each counted once, however often it reported) reported it, at its own threshold (`LEARNING_SHARED_THRESHOLD_SPREAD`).',
  },
  LEARNING_SHARED_THRESHOLD_SPREAD: {
    section: 'feedback',
    kind: 'integer',
    default: 3,
    min: 1,
    max: 100,
    description:
      "Each association's threshold is drawn, keyed by `LEARNING_SECRET`, from k + 1 to k + this many projects (k: `LEARNING_SHARED_MIN_PROJECTS`), so colluding projects cannot tell where it lies: k − 1 of them never see one other project's report, k of them at most for one association in this many; 1: exactly k + 1. See [privacy](privacy.md#colluding-projects).",
  },
  LEARNING_SHARED_MAX_ASSOCIATIONS: {
    section: 'feedback',
    kind: 'integer',
    default: 100_000,
    min: 1000,
    max: 10_000_000,
    description:
      "Associations the shared model keeps at most for the whole deployment (about 200 bytes each in Redis, and in each replica's copy); past it the least-evidenced go first. In process it is also held to a quarter of `CACHE_MEMORY_MB`.",
  },
  LEARNING_SHARED_MIN_PROJECT_DAYS: {
    section: 'feedback',
    kind: 'integer',
    default: 2,
    min: 1,
    max: 365,
    description:
      "A project's reports count towards shared learning only once it has reported on this many distinct days (UTC) and its first report is `LEARNING_SHARED_MIN_PROJECT_AGE_HOURS` old; until then they teach only itself. Projects made for an attack must first be kept alive that long. See [privacy](privacy.md#poisoning-by-projects-threat-model).",
  },
  LEARNING_SHARED_MIN_PROJECT_AGE_HOURS: {
    section: 'feedback',
    kind: 'integer',
    default: 24,
    min: 0,
    max: 8760,
    description:
      "Hours since a project's first report before its reports count towards shared learning (with `LEARNING_SHARED_MIN_PROJECT_DAYS`).",
  },
  LEARNING_SHARED_HOLD_MINUTES: {
    section: 'feedback',
    kind: 'integer',
    default: 60,
    min: 0,
    max: 10_080,
    description:
      'An association is used only once its threshold has been met for this long without a break: falling below it starts the wait again.',
  },
  LEARNING_SHARED_NEW_PER_HOUR: {
    section: 'feedback',
    kind: 'integer',
    default: 1000,
    min: 1,
    max: 1_000_000,
    description:
      'New associations that may become usable per hour, deployment-wide: those that met their threshold first go first, the rest wait their turn, so a flood of reports cannot activate more than this. A flood can delay honest associations by taking the turns.',
  },
  LEARNING_SHARED_MAX_SAYS: {
    section: 'feedback',
    kind: 'integer',
    default: 300_000,
    min: 1000,
    max: 100_000_000,
    description:
      "Projects' says (one per project and association, about 150 bytes each in Redis) kept at most for the whole deployment; past it the least-established project's record goes first (fewest days with reports, then the least recent), its says withdrawn from the counts. Sizing: [operations](operations.md#redis).",
  },
  LEARNING_SECRET: {
    section: 'feedback',
    kind: 'secret',
    format: '≥ 32 bytes',
    description:
      "Key of the keyed hashes (HMAC-SHA-256) that stand for request words and tools in every project's learning, remembered searches and the shared model: nothing at rest shows a word. Required in production with `LEARNING_SHARED=true`; unset otherwise: derived from `AUTH_JWT_SECRET`, or from the public key settings (a dump is then not readable at a glance, but guessable: set it).",
  },

  // ---- metrics ----
  METRICS_ENABLED: {
    section: 'metrics',
    kind: 'boolean',
    default: true,
    defaultNote: '`true`, but `false` in production without `METRICS_PORT`',
    description:
      'Serve Prometheus metrics. In production (`NODE_ENV=production`) they are served on the public API port, without authentication, only when `METRICS_ENABLED=true` is set; with `METRICS_PORT` they are on by default on that port.',
  },
  METRICS_PATH: {
    section: 'metrics',
    kind: 'string',
    default: '/metrics',
    format: 'a path outside `/v1/`',
    description: 'Path of the metrics.',
  },
  METRICS_PORT: {
    section: 'metrics',
    kind: 'integer',
    min: 1,
    max: 65_535,
    example: '9464',
    description:
      'Serve metrics on this port instead of the API port (the Kubernetes base uses 9464, not exposed by the Service). Unset in production: no metrics unless `METRICS_ENABLED=true`.',
  },
  METRICS_HOST: {
    section: 'metrics',
    kind: 'string',
    default: '0.0.0.0',
    description: 'Listen address of `METRICS_PORT`.',
  },

  // ---- tracing ----
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    section: 'tracing',
    kind: 'string',
    format: 'http(s) URL',
    example: 'http://otel-collector:4318',
    description:
      'OTLP/HTTP base URL of a collector; spans go to its `/v1/traces`. Unset (and no traces endpoint): tracing off, no OpenTelemetry code loaded. Headers for the collector (e.g. an API key) go in `OTEL_EXPORTER_OTLP_HEADERS`, read by the exporter itself.',
  },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: {
    section: 'tracing',
    kind: 'string',
    format: 'http(s) URL',
    description: 'Full URL spans are POSTed to; wins over `OTEL_EXPORTER_OTLP_ENDPOINT`.',
  },
  OTEL_SERVICE_NAME: {
    section: 'tracing',
    kind: 'string',
    default: 'catalog-search',
    description: '`service.name` of the spans.',
  },
  OTEL_SDK_DISABLED: {
    section: 'tracing',
    kind: 'boolean',
    default: false,
    description: '`true` turns tracing off even with an endpoint set.',
  },

  // ---- http ----
  CORS_ORIGINS: {
    section: 'http',
    kind: 'list',
    format: 'origins, or `*`',
    example: 'https://app.example.com',
    description:
      'Browser origins allowed to call the API, for clients in a browser or Electron renderer. Unset: no CORS headers.',
  },
  MAX_BODY_BYTES: {
    section: 'http',
    kind: 'integer',
    default: 5 * MiB,
    min: 1024,
    max: 1024 * MiB,
    defaultNote: '`5242880` (5 MB)',
    description: 'Largest request body, after decompression (gzip, deflate and br bodies are accepted; 413 above).',
  },
  REQUEST_TIMEOUT_MS: {
    section: 'http',
    kind: 'integer',
    default: 30_000,
    min: 1000,
    max: 600_000,
    description: 'Longest time to receive a whole request (then 408 problem+json; checked every 250 ms).',
  },
  HEADERS_TIMEOUT_MS: {
    section: 'http',
    kind: 'integer',
    default: 15_000,
    min: 1000,
    max: 600_000,
    description: 'Longest time to receive the request headers (then 408 problem+json); at most `REQUEST_TIMEOUT_MS`.',
  },
  KEEP_ALIVE_TIMEOUT_MS: {
    section: 'http',
    kind: 'integer',
    default: 72_000,
    min: 1000,
    max: 600_000,
    description: 'Idle keep-alive time (above common load-balancer idle timeouts).',
  },

  // ---- docs ----
  DOCS_ENABLED: {
    section: 'docs',
    kind: 'boolean',
    default: true,
    description: 'Serve `/docs`, `/openapi.json` and `/openapi.yaml`. With `false` all three answer 404.',
  },
  PLAYGROUND: {
    section: 'docs',
    kind: 'one-of',
    default: 'on',
    defaultNote: '`on`, but `off` in production',
    allowed: ['on', 'off'],
    description:
      'Serve `/playground`, a page that searches a tool list through the public API with a bearer token you paste (with the development key it fills in a development token, on loopback only), and shows each answer with and without learning. `off`: 404.',
  },
} as const satisfies Record<string, Variable>;

export type VariableName = keyof typeof VARIABLES;
type Table = typeof VARIABLES;
/** The names of the variables of one kind, so the reader cannot read a variable as another kind. */
export type NameOfKind<K extends VariableKind> = {
  [N in VariableName]: Table[N]['kind'] extends K ? N : never;
}[VariableName];
