/**
 * Scheme, host and port of a URL, for logs: a base URL may carry credentials (a Redis password, an API
 * key in a query) that must not reach them. Not `URL.origin`, which is "null" for `redis://`.
 */
export function originOf(url: string): string {
  try {
    const { protocol, host } = new URL(url);
    return `${protocol}//${host}`;
  } catch {
    return '(invalid URL)';
  }
}
