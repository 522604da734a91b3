// Load helpers for the reliability scenarios: paced request loops, latency percentiles, and the
// resident memory of a child process (read from /proc, Linux only, as CI and the container are).
import { readFileSync } from 'node:fs';
import type { ToolInfo } from '@catalog-search/core';

export interface Timed {
  status: number;
  ms: number;
}

/** POSTs a search and measures it end to end (0 = network error or client timeout). */
export async function timedSearch(
  url: string,
  token: string,
  body: unknown,
  timeoutMs = 15_000,
  contentType = 'application/json',
): Promise<Timed> {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  const started = performance.now();
  try {
    const response = await fetch(`${url}/v1/catalog/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
      body: payload,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.arrayBuffer();
    return { status: response.status, ms: performance.now() - started };
  } catch {
    return { status: 0, ms: performance.now() - started };
  }
}

/**
 * Calls `send` every `intervalMs` (not waiting for earlier calls: an open loop, as independent clients
 * would) until `durationMs` has passed, then waits for the calls in flight.
 */
export async function paced<T>(intervalMs: number, durationMs: number, send: (at: number) => Promise<T>): Promise<T[]> {
  const pending: Promise<T>[] = [];
  const started = performance.now();
  for (let at = 0; performance.now() - started < durationMs; at += 1) {
    pending.push(send(at));
    const next = started + (at + 1) * intervalMs;
    await sleep(Math.max(0, next - performance.now()));
  }
  return Promise.all(pending);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Resident set size of a process in MB (VmRSS). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

/** Samples a process's RSS every `everyMs` until stopped; returns the peak and the samples. */
export function watchRss(
  pid: number,
  everyMs = 200,
): { stop(): { peakMb: number; lastMb: number; samples: number[] } } {
  const samples: number[] = [];
  const timer = setInterval(() => {
    try {
      samples.push(rssMb(pid));
    } catch {
      // the process has gone
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return { peakMb: Math.max(...samples), lastMb: samples.at(-1) ?? Number.NaN, samples };
    },
  };
}

/** `count` tools whose text is unique to `seed` (distinct lists for distinct projects or requests). */
export function uniqueTools(count: number, seed: string, descriptionChars = 160): ToolInfo[] {
  const words = [
    'list',
    'create',
    'update',
    'delete',
    'search',
    'export',
    'invoice',
    'ticket',
    'contact',
    'report',
    'order',
    'payment',
  ];
  return Array.from({ length: count }, (_, at) => {
    const head = `${words[at % words.length]} ${words[(at * 7) % words.length]} record ${seed} ${at} `;
    const filler = `${seed}x${at}y`.repeat(Math.ceil(descriptionChars / 8));
    return {
      toolKey: `srv${at % 50}:tool_${seed}_${at}`,
      toolName: `tool_${seed}_${at}`,
      serverName: `Server ${at % 50}`,
      description: (head + filler).slice(0, descriptionChars),
      inputSchema: { type: 'object', properties: { id: { type: 'string' }, limit: { type: 'integer' } } },
    };
  });
}
