// The model call for one prompt: streams the answer, keeps each valid grade as it arrives (so a
// cut answer still has them), repeats the call without an output option the endpoint refused, and
// says how the answer ended (complete, cut, failed).
import type { DegradedReason } from '@catalog-search/core';
import type OpenAI from 'openai';
import { GradeStreamParser, isEmptyAnswer, type RawGrade } from './grade-parser.js';
import { classifyFailure, streamAnswer } from './llm-call.js';
import type { OutputModeMemory } from './output-mode.js';
import type { PromptPlan } from './prompt-plan.js';
import type { Flight, FlightResult } from './single-flight.js';

interface GradeCall {
  client: OpenAI;
  model: string;
  modes: OutputModeMemory;
  prompt: PromptPlan;
  /** Ids of the prompt's candidates: grades for anything else are dropped. */
  candidateIds: ReadonlySet<string>;
  /** When the call is given up in any case (`performance.now()` ms): the SDK's timeout backstop. */
  backstopAt: number;
  /** Headers for the call (the caller's trace context). */
  headers?: Record<string, string>;
  /** Told once when the call fails, with its cause (not when it was aborted at the deadline). */
  onFailure?: (failure: UpstreamFailure) => void;
}

/** Why a model call failed, as far as the SDK tells: HTTP status, error code, or the network cause. */
export interface UpstreamFailure {
  reason: DegradedReason;
  status?: number;
  code?: string;
  message: string;
}

export async function callForGrades(call: GradeCall, flight: Flight): Promise<FlightResult> {
  const { prompt, modes } = call;
  const { signal } = flight.controller;
  const started = performance.now();
  const seen = new Set<string>();
  const accept = (grade: RawGrade) => {
    if (!call.candidateIds.has(grade.id) || seen.has(grade.id)) return; // not a candidate, or said twice
    seen.add(grade.id);
    flight.grades.push(grade);
  };
  for (;;) {
    const attempt = modes.current();
    const parser = new GradeStreamParser();
    try {
      const answer = await streamAnswer(
        call.client,
        {
          model: call.model,
          messages: prompt.messages,
          ...attempt,
          signal,
          timeoutMs: call.backstopAt - performance.now(),
          ...(call.headers ? { headers: call.headers } : {}),
        },
        (delta) => parser.push(delta).forEach(accept),
      );
      const usage = answer.usage ?? {
        promptTokens: prompt.promptTokens,
        completionTokens: answer.estimatedCompletionTokens,
        totalTokens: prompt.promptTokens + answer.estimatedCompletionTokens,
      };
      const modelMs = performance.now() - started;
      // The SDK ends an aborted or dropped stream quietly: without a finish_reason the answer is
      // incomplete (and "length" means the token limit cut it).
      const cutBy: DegradedReason | undefined = answer.capped
        ? 'answer_too_long'
        : signal.aborted
          ? 'timeout'
          : answer.finishReason === undefined || answer.finishReason === 'length'
            ? 'upstream_error'
            : undefined;
      if (cutBy === 'upstream_error') {
        call.onFailure?.({
          reason: cutBy,
          message: `the answer stream ended without a finish (finish_reason ${answer.finishReason ?? 'absent'})`,
        });
      }
      if (cutBy) {
        // A capped answer says so even when some grades arrived; other cuts keep what came as `partial`.
        const failure = flight.grades.length > 0 && cutBy !== 'answer_too_long' ? 'partial' : cutBy;
        return { grades: flight.grades, complete: false, failure, usage, modelMs };
      }
      if (flight.grades.length === 0 && !isEmptyAnswer(answer.text)) {
        return { grades: [], complete: true, failure: 'invalid_output', usage, modelMs };
      }
      return { grades: flight.grades, complete: true, usage, modelMs };
    } catch (error) {
      const failure = classifyFailure(error, signal.aborted, attempt);
      if (modes.downgrade(attempt, failure, flight.grades.length)) continue;
      const modelMs = performance.now() - started;
      const reason: DegradedReason =
        failure === 'format_rejected' || failure === 'stream_options_rejected' ? 'upstream_error' : failure;
      if (!signal.aborted) call.onFailure?.(describeFailure(reason, error));
      return {
        grades: flight.grades,
        complete: false,
        failure: flight.grades.length > 0 ? 'partial' : reason,
        modelMs,
      };
    }
  }
}

/** The status, code and network cause of a failed call (openai's errors keep the fetch error as `cause`). */
function describeFailure(reason: DegradedReason, error: unknown): UpstreamFailure {
  const failure: UpstreamFailure = { reason, message: error instanceof Error ? error.message : String(error) };
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number') failure.status = status;
  // The innermost code: ENOTFOUND (DNS), ECONNREFUSED (connect), ETIMEDOUT, UND_ERR_SOCKET…, or the API's error code.
  for (let at: unknown = error; at !== null && typeof at === 'object'; at = (at as { cause?: unknown }).cause) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string') failure.code = code;
  }
  return failure;
}
