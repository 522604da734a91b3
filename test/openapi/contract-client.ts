/**
 * What a router author writes with a client generated from openapi.yaml (openapi-typescript types
 * + openapi-fetch). The contract test type-checks this file against the freshly generated types
 * with tsc, then runs it against the real service: a spec change that breaks this code, or a
 * response the spec does not describe, fails the test.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/catalog-search.js';

export type SearchRequest = components['schemas']['SearchRequest'];
export type SearchResponse = components['schemas']['SearchResponse'];
export type Problem = components['schemas']['Problem'];
export type FeedbackRequest = components['schemas']['FeedbackRequest'];
export type FeedbackResponse = components['schemas']['FeedbackResponse'];

export function catalogSearchClient(baseUrl: string, token?: string) {
  return createClient<paths>({
    baseUrl,
    headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
  });
}
type Client = ReturnType<typeof catalogSearchClient>;

export interface SearchHeaders {
  'X-Search-Deadline-Ms'?: string;
  'X-Project-Id'?: string;
  'X-Request-Id'?: string;
}

/** The versioned operation (`searchCatalog`). */
export function searchV1(client: Client, body: SearchRequest, header: SearchHeaders = {}) {
  return client.POST('/v1/catalog/search', { body, params: { header } });
}

/** The seed path of the same operation (`searchCatalogUnversioned`). */
export function searchSeedPath(client: Client, body: SearchRequest) {
  return client.POST('/catalog/search', { body });
}

/** A body the spec forbids, sent anyway: for the error contract (the cast is the point). */
export function searchRaw(
  client: Client,
  body: unknown,
  options: { contentType?: string; contentEncoding?: string } = {},
) {
  const headers = {
    ...(options.contentType === undefined ? {} : { 'Content-Type': options.contentType }),
    ...(options.contentEncoding === undefined ? {} : { 'Content-Encoding': options.contentEncoding }),
  };
  const raw = options.contentType !== undefined || options.contentEncoding !== undefined;
  return client.POST('/v1/catalog/search', {
    body: body as SearchRequest,
    headers,
    ...(raw ? { bodySerializer: (value: unknown) => String(value) } : {}),
  });
}

/** A router's report after tool_execute (`reportFeedback`), and on the seed path. */
export function reportV1(client: Client, body: FeedbackRequest) {
  return client.POST('/v1/catalog/feedback', { body });
}

export function reportSeedPath(client: Client, body: FeedbackRequest) {
  return client.POST('/catalog/feedback', { body });
}

/** A report body the spec forbids, sent anyway. */
export function reportRaw(client: Client, body: unknown) {
  return client.POST('/v1/catalog/feedback', { body: body as FeedbackRequest });
}

/** Forget what the project taught (`forgetFeedback`), and on the seed path. */
export function forgetV1(client: Client) {
  return client.DELETE('/v1/catalog/feedback');
}

export function forgetSeedPath(client: Client) {
  return client.DELETE('/catalog/feedback');
}

/** Typed access to the report's answer. */
export function ignoredReasons(response: FeedbackResponse): string[] {
  return response.ignored.map((event) => `${event.index}: ${event.reason}`);
}

export function liveness(client: Client) {
  return client.GET('/healthz');
}

export function readiness(client: Client) {
  return client.GET('/readyz');
}

/** Typed access that only compiles if the generated types match what routers rely on. */
export function topToolKeys(response: SearchResponse): string[] {
  const ranker: 'bm25' | 'llm' = response.meta.ranker;
  void ranker;
  return response.results.map((result) => `${result.toolKey} ${result.relevance.toFixed(2)}`);
}

export function problemCode(problem: Problem): string {
  return `${problem.status} ${problem.code} ${problem.requestId}`;
}
