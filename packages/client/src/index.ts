export { createCatalogSearchClient } from './client.js';
// Languages for the local fallback: `import '@catalog-search/client/languages/ja'` (or `await
// loadLanguages(['ja'])`) before the first search; without, requests in them rank without a dictionary.
export { LANGUAGE_CODES, loadLanguages, loadedLanguages } from '@catalog-search/core';
export {
  DEFAULT_DEADLINE_MARGIN_MS,
  DEFAULT_FEEDBACK_PATH,
  DEFAULT_MAX_DESCRIPTION_CHARS,
  DEFAULT_PATH,
  DEFAULT_TIMEOUT_MS,
} from './client-options.js';
export type {
  CatalogSearchClient,
  CatalogSearchClientOptions,
  FallbackEvent,
  SearchEvent,
  SearchOptions,
  SearchOutcome,
} from './client-contract.js';
export type { TraceContextHeaders } from './trace-context.js';
export {
  DEFAULT_DISCOVERY_RESULTS,
  handleToolDiscovery,
  TOOL_DISCOVERY_NAME,
  TOOL_DISCOVERY_TOOL,
  type ToolDiscoveryArguments,
  type ToolDiscoveryCallResult,
  type ToolDiscoveryDetail,
  type ToolDiscoveryOptions,
  type ToolDiscoveryResult,
} from './tool-discovery.js';
export { TOOL_EXECUTE_NAME, TOOL_EXECUTE_TOOL } from './tool-execute.js';
export {
  DEFAULT_COOLDOWN_MS,
  DEFAULT_FAILURE_THRESHOLD,
  DEFAULT_MAX_RETRY_AFTER_MS,
  DEFAULT_PROBE_INTERVAL_MS,
  type CircuitBreakerOptions,
  type CircuitSnapshot,
  type CircuitState,
} from './circuit-breaker.js';
export type { FetchLike } from './cloud-call.js';
export {
  DEFAULT_FLUSH_TIMEOUT_MS,
  type FlushOptions,
  type OutcomeReport,
  type OutcomeReportOptions,
} from './outcome-reports.js';
export { toServers, type ListedServer, type ListToolsResult } from './mcp-servers.js';
export { COMPRESSION_THRESHOLD, type Compression } from './compression.js';
export { CONFIGURATION_REASONS, type FallbackReason } from './fallback-reason.js';
export {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  CatalogSearchError,
  CircuitOpenError,
  CredentialsError,
  InternalServerError,
  InvalidRequestError,
  InvalidResponseError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
  type ProblemDetails,
} from './errors.js';
// Re-exported so a router needs one import for the wire types.
export type {
  FeedbackEvent,
  FeedbackOutcome,
  FeedbackResponse,
  GroupedSearchRequest,
  McpServerTools,
  McpTool,
  SearchBoost,
  SearchFilter,
  SearchMeta,
  SearchRequest,
  SearchResponse,
  SearchResult,
  SkippedTool,
  ToolInfo,
  ToolListSearchRequest,
} from '@catalog-search/core';
