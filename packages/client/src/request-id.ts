/**
 * A request id for `X-Request-Id` and the local fallback's `meta.requestId`. `crypto.randomUUID`
 * exists in Node and in browsers' secure contexts; elsewhere (an Electron page on a custom
 * protocol) fall back to `getRandomValues`, which has no secure-context restriction.
 */
export function newRequestId(): string {
  const cryptoApi = globalThis.crypto;
  if (typeof cryptoApi?.randomUUID === 'function') return cryptoApi.randomUUID();
  const bytes = new Uint8Array(16);
  if (typeof cryptoApi?.getRandomValues === 'function') cryptoApi.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i += 1) bytes[i] = Math.floor(Math.random() * 256);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
