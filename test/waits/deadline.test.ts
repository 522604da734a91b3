// The search deadline (src/waits/deadline.ts): its signal is made only when a stage reads it, and
// then aborts when the deadline passes, counted from the start of the search, not from the read.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it, vi } from 'vitest';
import { abortAfter } from '@catalog-search/core';
import { startDeadline } from '../../src/waits/deadline.js';

// A major GC on demand without starting node with --expose-gc (the flag set at run time, the function
// read from a fresh context).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options?: { type: 'major'; execution: 'sync' }) => void;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));

describe('startDeadline', () => {
  it('makes no timer for a search that never waits on its signal', () => {
    const timeout = vi.spyOn(globalThis, 'setTimeout');
    try {
      const deadline = startDeadline(5000, { elapsedMs: 10 });
      expect(deadline.remainingMs()).toBeGreaterThan(4000);
      expect(timeout).not.toHaveBeenCalled();
      expect(deadline.signal.aborted).toBe(false);
      expect(timeout).toHaveBeenCalledTimes(1);
      expect(deadline.signal).toBe(deadline.signal);
      expect(timeout).toHaveBeenCalledTimes(1);
    } finally {
      timeout.mockRestore();
    }
  });

  it('a signal read late aborts at the deadline, not a whole budget after the read', async () => {
    const deadline = startDeadline(1000);
    await sleep(700);
    const readAt = performance.now();
    await aborted(deadline.signal);
    // A budget counted from the read would abort a whole budget after it (less Node's one early ms),
    // however late the read came; the deadline aborts at least 300 ms sooner, room for a busy machine's
    // late timer (a fixed 1,500 ms from the start left it 500, less the sleep's own lateness).
    expect(performance.now() - readAt).toBeLessThan(1000 - 1);
    // Node's timers count whole milliseconds on their own clock: at most one early against performance.now().
    expect(deadline.remainingMs()).toBeLessThanOrEqual(1);
  });

  it('a signal read after the deadline passed aborts', async () => {
    const deadline = startDeadline(20);
    await sleep(40);
    await aborted(deadline.signal);
    expect(deadline.signal.aborted).toBe(true);
  });

  it('aborts when the caller hangs up, whether read before or after', async () => {
    const hangUp = new AbortController();
    const before = startDeadline(5000, { cancel: hangUp.signal });
    const readBefore = before.signal;
    hangUp.abort();
    expect(readBefore.aborted).toBe(true);
    expect(startDeadline(5000, { cancel: hangUp.signal }).signal.aborted).toBe(true);
  });

  it('every deadline and every wait chained to one fires after forced major GCs (held by nothing but their listeners)', async () => {
    // As a search holds them: a deadline with a caller signal, and a stage's wait chained to it, each
    // read once and listened to; nothing else keeps them.
    // With AbortSignal.any in place of abortAfter, the waits chained to a deadline nobody listens to
    // directly (the old semantic stage's shape) fired 0 of 40 after one GC (Node 20.20).
    let fired = 0;
    const deadlines = [];
    for (let i = 0; i < 40; i += 1) {
      const deadline = startDeadline(300 + i, { cancel: new AbortController().signal });
      deadlines.push(deadline);
      if (i % 2 === 0) deadline.signal.addEventListener('abort', () => (fired += 1), { once: true });
      abortAfter(1000, deadline.signal).signal.addEventListener('abort', () => (fired += 1), { once: true });
    }
    for (let i = 0; i < 8; i += 1) {
      gc({ type: 'major', execution: 'sync' });
      await sleep(50);
    }
    await sleep(200);
    expect(fired).toBe(60);
    expect(deadlines.every((deadline) => deadline.signal.aborted)).toBe(true);
  });
});
