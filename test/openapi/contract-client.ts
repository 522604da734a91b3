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
export function searchRaw(client: Client, body: unknown, options: { contentType?: string; contentEncoding?: string } = {}) {
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
