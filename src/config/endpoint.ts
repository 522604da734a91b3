// The three variables that name an OpenAI-compatible endpoint, read alike for each stage that calls
// one: `<STAGE>_BASE_URL`, `<STAGE>_API_KEY`, `<STAGE>_MODEL`.
import type { EnvReader } from './env-reader.js';
import { isHttpUrl } from './http-url.js';

interface EndpointSettings {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
}

/**
 * `unset`: neither URL nor model is set (an API key alone is a problem); `invalid`: one is missing or
 * the URL is not http(s), each problem named in `problems`.
 */
type EndpointReading = { state: 'unset' } | { state: 'invalid' } | { state: 'set'; endpoint: EndpointSettings };

export function readEndpoint(read: EnvReader, stage: 'LLM' | 'EMBEDDINGS', problems: string[]): EndpointReading {
  const baseUrl = read.optionalString(`${stage}_BASE_URL`);
  const apiKey = read.optionalString(`${stage}_API_KEY`);
  const model = read.optionalString(`${stage}_MODEL`);
  if (baseUrl === undefined && model === undefined) {
    if (apiKey !== undefined)
      problems.push(`${stage}_API_KEY: set ${stage}_BASE_URL and ${stage}_MODEL too, or unset it`);
    return { state: 'unset' };
  }
  let ok = true;
  if (baseUrl === undefined) {
    problems.push(
      `${stage}_BASE_URL: required when ${stage}_MODEL is set (an OpenAI-compatible endpoint, e.g. https://api.openai.com/v1)`,
    );
    ok = false;
  } else if (!isHttpUrl(baseUrl)) {
    problems.push(`${stage}_BASE_URL: must be an http(s) URL (got "${baseUrl}")`);
    ok = false;
  }
  if (model === undefined) {
    problems.push(`${stage}_MODEL: required when ${stage}_BASE_URL is set`);
    ok = false;
  }
  return ok ? { state: 'set', endpoint: { baseUrl: baseUrl!, apiKey, model: model! } } : { state: 'invalid' };
}
