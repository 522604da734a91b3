import { UNASSIGNED_PROJECT_ID } from '../config/index.js';
import { ProblemError } from '../http/errors.js';

/**
 * The token's project claim is the tenant boundary. `""` and `UNASSIGNED_PROJECT_ID` both name the
 * unassigned project, which is a scope of its own like any other.
 */
const MAX_PROJECT_ID_CHARS = 256;

function normalizeProjectId(value: string): string {
  return value === '' ? UNASSIGNED_PROJECT_ID : value;
}

export function projectFromClaims(
  payload: Record<string, unknown>,
  claim: string,
  projectHeader: string | string[] | undefined,
): string {
  const value = payload[claim];
  if (typeof value !== 'string') {
    throw new ProblemError('FORBIDDEN', `The token has no "${claim}" claim (string), so it names no project.`);
  }
  if (value.length > MAX_PROJECT_ID_CHARS) {
    throw new ProblemError(
      'FORBIDDEN',
      `The token's "${claim}" claim is longer than ${MAX_PROJECT_ID_CHARS} characters.`,
    );
  }
  const projectId = normalizeProjectId(value);
  if (projectHeader !== undefined) {
    const header = Array.isArray(projectHeader) ? projectHeader.join(',') : projectHeader;
    if (normalizeProjectId(header.trim()) !== projectId) {
      throw new ProblemError('FORBIDDEN', `The X-Project-Id header does not match the token's "${claim}" claim.`);
    }
  }
  return projectId;
}

/**
 * The project's say in shared learning (docs/privacy.md): its reports count for other projects only
 * when the token's `shareLearning` claim is absent or the JSON boolean `true`. Any other value opts out:
 * a router writing its opt-out as `"false"`, `0` or `null` meant to keep its reports, and a yes written
 * as a string costs only what the project would have given. Never a 403: a token that was accepted
 * stays accepted.
 */
export function shareLearningFromClaims(payload: Record<string, unknown>): boolean {
  const value = payload.shareLearning;
  return value === undefined || value === true;
}

/**
 * Whether the project's searches use what other projects taught (docs/privacy.md): when the token's
 * `useSharedLearning` claim is absent or the JSON boolean `true`. Any other value refuses, as for
 * `shareLearning`: a router that wrote its refusal as `"false"` meant to refuse, and a refusal costs
 * only the shared raise. Never a 403.
 */
export function useSharedLearningFromClaims(payload: Record<string, unknown>): boolean {
  const value = payload.useSharedLearning;
  return value === undefined || value === true;
}
