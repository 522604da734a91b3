// One streamed chat-completions call through the official SDK, and the mapping of its failures
// onto our degradation vocabulary. The caller owns the deadline: `signal` aborts the call, `timeout`
// is the same remaining time as a backstop, and the SDK never retries (`maxRetries: 0`), because a
// retry would outlive the deadline.
import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { ResponseTooLargeError } from '../endpoint/bounded-fetch.js';
import { classifyEndpointError, refusalText } from '../endpoint/openai-client.js';
import { MAX_ANSWER_CHARS } from './answer-limits.js';
import { GRADES_JSON_SCHEMA, type PromptMessage } from './prompt.js';
import { countTextTokens } from './token-count.js';
import type { DegradedReason } from '@catalog-search/core';
import type { TokenUsage } from './stage.js';

/**
 * How we ask for structured output, best first. An endpoint that rejects one (HTTP 400 about
 * `response_format`) is asked with the next, and remembered: `json_schema` → `json_object` →
 * plain text read by the tolerant parser.
 */
export type OutputMode = 'json_schema' | 'json_object' | 'text';

export const NEXT_MODE: Record<OutputMode, OutputMode | undefined> = {
  json_schema: 'json_object',
  json_object: 'text',
  text: undefined,
};

interface CallSettings {
  model: string;
  messages: PromptMessage[];
  mode: OutputMode;
  /** Ask for a usage chunk at the end of the stream (some endpoints reject `stream_options`). */
  includeUsage: boolean;
  signal: AbortSignal;
  timeoutMs: number;
  /** Extra request headers (the caller's W3C trace context). */
  headers?: Record<string, string>;
}

interface StreamedAnswer {
  /** The answer text, at most MAX_ANSWER_CHARS. */
  text: string;
  finishReason?: string;
  /** The endpoint's usage chunk, if it sent one. */
  usage?: TokenUsage;
  /**
   * Completion tokens estimated as the deltas arrived (each counted on its own, so no single count
   * can take long): for endpoints that send no usage.
   */
  estimatedCompletionTokens: number;
  /** Reading stopped because the answer passed a limit of answer-limits.ts (the call is aborted). */
  capped: boolean;
}

export async function streamAnswer(
  client: OpenAI,
  settings: CallSettings,
  onText: (delta: string) => void,
): Promise<StreamedAnswer> {
  const body: ChatCompletionCreateParamsStreaming = {
    model: settings.model,
    messages: settings.messages,
    stream: true,
    ...(settings.includeUsage ? { stream_options: { include_usage: true } } : {}),
  };
  if (settings.mode === 'json_schema') {
    body.response_format = {
      type: 'json_schema',
      json_schema: {
        name: 'tool_grades',
        strict: true,
        schema: GRADES_JSON_SCHEMA as unknown as Record<string, unknown>,
      },
    };
  } else if (settings.mode === 'json_object') {
    body.response_format = { type: 'json_object' };
  }
  const stream = await client.chat.completions.create(body, {
    signal: settings.signal,
    timeout: Math.max(1, Math.ceil(settings.timeoutMs)),
    maxRetries: 0,
    ...(settings.headers ? { headers: settings.headers } : {}),
  });
  let text = '';
  let finishReason: string | undefined;
  let usage: TokenUsage | undefined;
  let estimatedCompletionTokens = 0;
  let capped = false;
  try {
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      let delta = choice?.delta?.content;
      if (delta) {
        const room = MAX_ANSWER_CHARS - text.length;
        if (delta.length > room) {
          delta = delta.slice(0, room);
          capped = true;
        }
        text += delta;
        estimatedCompletionTokens += countTextTokens(delta);
        onText(delta);
        if (capped) break; // leaving the loop aborts the request
      }
      if (choice?.finish_reason) finishReason = choice.finish_reason;
      if (chunk.usage) {
        usage = {
          promptTokens: chunk.usage.prompt_tokens,
          completionTokens: chunk.usage.completion_tokens,
          totalTokens: chunk.usage.total_tokens,
        };
      }
    }
  } catch (error) {
    if (!(error instanceof ResponseTooLargeError)) throw error;
    capped = true;
  }
  return {
    text,
    ...(finishReason && !capped ? { finishReason } : {}),
    ...(usage ? { usage } : {}),
    estimatedCompletionTokens,
    capped,
  };
}

/**
 * What went wrong with a call: a degradation reason, or the endpoint's refusal of a request option we
 * can do without (our output mode, `stream_options`), which is then dropped and the call repeated.
 */
export type CallFailure = DegradedReason | 'format_rejected' | 'stream_options_rejected';

export function classifyFailure(
  error: unknown,
  aborted: boolean,
  settings: Pick<CallSettings, 'mode' | 'includeUsage'>,
): CallFailure {
  const failure = classifyEndpointError(error, aborted);
  // A body limit passed outside the stream (streamAnswer reads one inside as `capped`) leaves no answer.
  if (failure === 'too_large') return 'upstream_error';
  if (failure !== 'upstream_error') return failure;
  const about = refusalText(error);
  if (about !== undefined) {
    if (settings.includeUsage && /stream_options|include_usage/i.test(about)) return 'stream_options_rejected';
    if (
      settings.mode !== 'text' &&
      /response_format|json_schema|json_object|structured output|json mode/i.test(about)
    ) {
      return 'format_rejected';
    }
  }
  return 'upstream_error';
}
