/** Endpoints the service calls (LLM, embeddings, JWKS, OTLP) and CORS origins must be http(s). */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
