// The one search call of the tests: POST /v1/catalog/search (or the unversioned path) over real HTTP with a
// project's token. Tests about the raw HTTP exchange (streamed bodies, aborted sockets) keep their own fetch.
import { testToken } from './tokens.js';

export interface SearchAsOptions {
  /** The tenant whose token is sent (testToken's default project when absent). */
  projectId?: string;
  /** A token to send instead of one for `projectId`; `null` sends no Authorization header. */
  token?: string | null;
  /** `/v1/catalog/search` (default) or the unversioned path `/catalog/search`. */
  path?: '/v1/catalog/search' | '/catalog/search';
  /** Sent as the x-search-deadline-ms header. */
  deadlineMs?: number;
  /** Any other request headers (content-encoding, traceparent, x-request-id, x-project-id...). */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface SearchAsAnswer<Body = Record<string, any>> {
  status: number;
  /** The parsed JSON body (undefined when the answer is not JSON). */
  body: Body;
  /** The raw answer text. */
  text: string;
  headers: Headers;
}

/**
 * Sends `body` as JSON (a string or bytes are sent as they are, e.g. a gzipped list) and reads the whole
 * answer. `server` is anything with a `url` (RunningApp, a service process) or a base URL.
 */
export async function searchAs<Body = Record<string, any>>(
  server: { url: string } | string,
  body: unknown,
  options: SearchAsOptions = {},
): Promise<SearchAsAnswer<Body>> {
  const base = typeof server === 'string' ? server : server.url;
  const token =
    options.token === undefined
      ? testToken(options.projectId === undefined ? {} : { projectId: options.projectId })
      : options.token;
  const raw = typeof body === 'string' || body instanceof Uint8Array;
  const response = await fetch(`${base}${options.path ?? '/v1/catalog/search'}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(options.deadlineMs === undefined ? {} : { 'x-search-deadline-ms': String(options.deadlineMs) }),
      ...options.headers,
    },
    body: raw ? (body as BodyInit) : JSON.stringify(body),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed as Body, text, headers: response.headers };
}
