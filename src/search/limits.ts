import { findDuplicateToolKey } from '@catalog-search/core';
import { ProblemError, type FieldError } from '../errors.js';

/** Names are identifiers, not prose (MCP caps tool names at 128): longer ones are refused. */
export const MAX_NAME_CHARS = 512;
const NAME_FIELDS = ['toolKey', 'toolName', 'serverName', 'title'] as const;

export interface RequestLimits {
  maxTools: number;
  maxQueryChars: number;
  maxContextChars: number;
}

/**
 * Configurable limits the wire schema cannot know. Runs before schema validation so that a body
 * with far too many tools is refused without validating each of them; fields of the wrong type are
 * left to the schema, which names them.
 */
export function enforceLimits(body: unknown, limits: RequestLimits): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
  const { tools, query, context } = body as Record<string, unknown>;
  if (Array.isArray(tools) && tools.length > limits.maxTools) {
    throw new ProblemError('TOO_MANY_TOOLS', `body /tools: ${tools.length} tools sent; at most ${limits.maxTools} are accepted per request (MAX_TOOLS).`, {
      errors: [{ field: '/tools', message: `must have at most ${limits.maxTools} items` }],
    });
  }
  const errors: FieldError[] = [];
  if (Array.isArray(query)) {
    query.forEach((item, index) => {
      if (typeof item === 'string' && item.length > limits.maxQueryChars) {
        errors.push({ field: `/query/${index}`, message: `must be at most ${limits.maxQueryChars} characters` });
      }
    });
  }
  if (typeof context === 'string' && context.length > limits.maxContextChars) {
    errors.push({ field: '/context', message: `must be at most ${limits.maxContextChars} characters` });
  }
  if (Array.isArray(tools)) {
    for (let index = 0; index < tools.length && errors.length < 20; index += 1) {
      const tool = tools[index] as Record<string, unknown> | null;
      if (tool === null || typeof tool !== 'object') continue;
      for (const name of NAME_FIELDS) {
        const value = tool[name];
        if (typeof value === 'string' && value.length > MAX_NAME_CHARS) {
          errors.push({ field: `/tools/${index}/${name}`, message: `must be at most ${MAX_NAME_CHARS} characters` });
        }
      }
    }
  }
  if (errors.length > 0) {
    const first = errors[0]!;
    throw new ProblemError('INVALID_REQUEST', `body ${first.field}: ${first.message}`, { errors });
  }
}

/** toolKey identifies a tool in results, so two tools with one key would make results ambiguous. */
export function rejectDuplicateToolKeys(tools: readonly { toolKey: string }[]): void {
  const duplicate = findDuplicateToolKey(tools);
  if (duplicate === undefined) return;
  const field = `/tools/${duplicate.index}/toolKey`;
  throw new ProblemError('INVALID_REQUEST', `body ${field}: duplicate toolKey "${duplicate.toolKey.slice(0, 200)}"`, {
    errors: [{ field, message: 'must be unique within tools' }],
  });
}
