// The search deadline (src/search/deadline.ts): its signal is made only when a stage reads it, and
// then aborts when the deadline passes, counted from the start of the search, not from the read.
import { describe, expect, it, vi } from 'vitest';
import { startDeadline } from '../src/search/deadline.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const aborted = (signal: AbortSignal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));

describe('startDeadline', () => {
  it('makes no timer for a search that never waits on its signal', () => {
    const timeout = vi.spyOn(AbortSignal, 'timeout');
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
    const started = performance.now();
    const deadline = startDeadline(1000);
    await sleep(700);
    await aborted(deadline.signal);
    // Within a generous bound: read at 700 ms, a budget counted from the read would abort at 1,700 ms.
    expect(performance.now() - started).toBeLessThan(1500);
    expect(deadline.remainingMs()).toBe(0);
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
});
