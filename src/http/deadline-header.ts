import { ProblemError } from './errors.js';

/** The client's remaining budget in ms: it lowers a search's SEARCH_DEADLINE_MS when smaller. */
export const DEADLINE_HEADER = 'x-search-deadline-ms';

/** A search's time budget from X-Search-Deadline-Ms; 400 when the header is not a positive integer. */
export function budgetFromHeader(header: string | string[] | undefined, configuredMs: number): number {
  if (header === undefined) return configuredMs;
  const value = Array.isArray(header) ? header.join(',') : header.trim();
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) {
    throw new ProblemError('INVALID_REQUEST', 'X-Search-Deadline-Ms must be a positive integer (milliseconds).', {
      errors: [{ field: 'X-Search-Deadline-Ms', message: 'must be a positive integer (milliseconds)' }],
    });
  }
  return Math.min(Number(value), configuredMs);
}
