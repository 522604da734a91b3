// Prompt planning: which candidates fit the token budget, the messages that show them, their size,
// and the key that identifies the prompt (for the answer cache and single flight).
import { createHash } from 'node:crypto';
import type { RerankRequest } from './stage.js';
import { selectCandidates, type Candidate, type CandidateOptions } from './candidates.js';
import { buildMessages, promptHeader, SYSTEM_PROMPT, type PromptMessage } from './prompt.js';
import { countTextTokens, MESSAGE_OVERHEAD_TOKENS, type LinePartsCache } from './token-count.js';

export interface PromptPlan {
  candidates: Candidate[];
  messages: PromptMessage[];
  /** Prompt size in o200k tokens, counted on the final messages. */
  promptTokens: number;
  /** Every tool of the request is a candidate. */
  whole: boolean;
  /** Identifies the prompt sent to this model: equal keys, equal answers. */
  key: string;
}

interface PlannerSettings {
  model: string;
  /** Most tokens (o200k) the whole prompt may have. */
  promptTokenBudget: number;
  candidates: CandidateOptions;
}

/** Room for the fixed text around the candidate lines (section tags, closing instruction). */
const FRAME_TOKENS = 40;

export function createPromptPlanner(settings: PlannerSettings) {
  const systemTokens = countTextTokens(SYSTEM_PROMPT) + 2 * MESSAGE_OVERHEAD_TOKENS + 3;

  /** `lineParts` is the project's memo of candidate lines (never shared across projects). */
  return function plan(request: RerankRequest, lineParts: LinePartsCache): PromptPlan {
    const maxResults = Math.min(30, Math.max(10, request.maxResults ?? 20));
    const parts = { query: request.query, ...(request.context ? { context: request.context } : {}), maxResults };
    const available = settings.promptTokenBudget - systemTokens - countTextTokens(promptHeader(parts)) - FRAME_TOKENS;
    const selection = selectCandidates(request, Math.max(0, available), lineParts, settings.candidates);
    const messages = buildMessages(parts, selection.candidates);
    const promptTokens =
      messages.reduce(
        (sum, message) => sum + MESSAGE_OVERHEAD_TOKENS + countMessageTokens(message, selection.candidates),
        0,
      ) + 3;
    const key = createHash('sha256')
      .update(settings.model)
      .update('\0')
      .update(JSON.stringify(messages))
      .digest('base64url');
    return { candidates: selection.candidates, messages, promptTokens, whole: selection.whole, key };
  };
}

/** Token counts of system prompts: one per maxResults value, so each is counted once. */
const systemPromptTokens = new Map<string, number>();

/** Token count of a message: candidate lines are already counted (memoised), the rest is counted here. */
function countMessageTokens(message: PromptMessage, candidates: readonly Candidate[]): number {
  if (message.role === 'system') {
    let tokens = systemPromptTokens.get(message.content);
    if (tokens === undefined) {
      tokens = countTextTokens(message.content);
      if (systemPromptTokens.size < 64) systemPromptTokens.set(message.content, tokens);
    }
    return tokens;
  }
  let rest = message.content;
  let lineTokens = 0;
  for (const candidate of candidates) lineTokens += candidate.tokens;
  const start = rest.indexOf('<tool_data>\n');
  const end = rest.lastIndexOf('\n</tool_data>');
  if (start >= 0 && end > start) rest = rest.slice(0, start + 12) + rest.slice(end);
  return countTextTokens(rest) + lineTokens;
}
