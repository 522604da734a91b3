import { countTools, exceedsCodePoints } from '@catalog-search/core';
import { ProblemError, type FieldError } from '../errors.js';

export interface RequestLimits {
  maxTools: number;
  maxQueryChars: number;
  maxContextChars: number;
}

/**
 * Configurable limits the wire schema cannot know. Runs before schema validation so that a body
 * with far too many tools is refused before any tool is read; fields of the wrong type are left to
 * the schema, which names them. Lengths are counted in characters (code points), as everywhere.
 */
export function enforceLimits(body: unknown, limits: RequestLimits): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
  const { query, context } = body as Record<string, unknown>;
  const tools = countTools(body as { tools?: unknown; servers?: unknown });
  if (tools > limits.maxTools) {
    const field = Array.isArray((body as { servers?: unknown }).servers) ? '/servers' : '/tools';
    throw new ProblemError('TOO_MANY_TOOLS', `body ${field}: ${tools} tools sent; at most ${limits.maxTools} are accepted per request (MAX_TOOLS).`, {
      errors: [{ field, message: `must carry at most ${limits.maxTools} tools` }],
    });
  }
  const errors: FieldError[] = [];
  if (Array.isArray(query)) {
    query.forEach((item, index) => {
      if (typeof item === 'string' && exceedsCodePoints(item, limits.maxQueryChars)) {
        errors.push({ field: `/query/${index}`, message: `must be at most ${limits.maxQueryChars} characters (MAX_QUERY_CHARS)` });
      }
    });
  }
  if (typeof context === 'string' && exceedsCodePoints(context, limits.maxContextChars)) {
    errors.push({ field: '/context', message: `must be at most ${limits.maxContextChars} characters (MAX_CONTEXT_CHARS)` });
  }
  if (errors.length > 0) {
    const first = errors[0]!;
    throw new ProblemError('INVALID_REQUEST', `body ${first.field}: ${first.message}`, { errors });
  }
}
