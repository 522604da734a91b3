import { rankToolsBySubQuery, type ToolInfo } from '@catalog-search/core';
import type { LlmReranker } from '../../src/rerank/exports.js';
import { startDeadline } from '../../src/waits/deadline.js';
import { watchLoopDelay } from './loop-delay.js';

export interface Run {
  query: string[];
  tools: ToolInfo[];
  context?: string;
  deadlineMs?: number;
  projectId?: string;
  signal?: AbortSignal;
}

/**
 * Reranks as the service does: lexical ranking first, then the stage under a deadline. `started` and
 * `elapsed` count from the deadline's start, after the lexical ranking (which a busy machine stretches
 * and the deadline here does not cover). `maxLagMs`: the event loop's longest delay meanwhile, by which
 * the deadline's timer may have fired late (./loop-delay.ts).
 */
export async function rerankRun(reranker: LlmReranker, run: Run) {
  const deadlineMs = run.deadlineMs ?? 2_000;
  const { ranked: lexical, bySubQuery } = rankToolsBySubQuery({
    query: run.query,
    tools: run.tools,
    ...(run.context ? { context: run.context } : {}),
  });
  const loop = watchLoopDelay();
  const started = performance.now();
  const outcome = await reranker.rerank(
    { query: run.query, tools: run.tools, lexical, bySubQuery, ...(run.context ? { context: run.context } : {}) },
    {
      projectId: run.projectId ?? 'project-a',
      deadline: startDeadline(deadlineMs, run.signal ? { cancel: run.signal } : {}),
    },
  );
  const finishedAt = performance.now();
  return { outcome, started, finishedAt, elapsed: finishedAt - started, maxLagMs: await loop.stop() };
}

export const keys = (ranked: { tool: ToolInfo }[]) => ranked.map((entry) => entry.tool.toolKey);
