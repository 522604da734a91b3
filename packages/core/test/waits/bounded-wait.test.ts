// The one "stop waiting" helper (core's waits/bounded-wait.ts): the work's value if it comes first,
// `undefined` at the first bound reached, the work's early failure passed on and a late one ignored,
// and nothing left behind (timer, abort listener) once the wait is over, whatever the collector does.
import { getEventListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { boundedWait } from '../../src/waits/bounded-wait.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options?: { type: 'major'; execution: 'sync' }) => void;

const never = () => new Promise<string>(() => {});
const later = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('boundedWait', () => {
  it("answers with the work's value when it comes before the bounds", async () => {
    const controller = new AbortController();
    await expect(boundedWait(later(5, 'done'), { signal: controller.signal, ms: 60_000 })).resolves.toBe('done');
    // The wait is over: it no longer listens to the caller's signal.
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('stops waiting after `ms`, even across major collections', async () => {
    const waiting = boundedWait(never(), { ms: 50 });
    for (let i = 0; i < 5; i += 1) {
      gc({ type: 'major', execution: 'sync' });
      await later(10, undefined);
    }
    await expect(waiting).resolves.toBeUndefined();
  });

  it('stops waiting when the signal aborts, and at once when it already has', async () => {
    const controller = new AbortController();
    const waiting = boundedWait(never(), { signal: controller.signal });
    controller.abort();
    await expect(waiting).resolves.toBeUndefined();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);

    let failLate!: (error: Error) => void;
    const failing = new Promise<string>((_, reject) => (failLate = reject));
    await expect(boundedWait(failing, { signal: controller.signal })).resolves.toBeUndefined();
    // Its failure after the wait ended is nobody's: no unhandled rejection (vitest fails the run on one).
    failLate(new Error('late'));
    await later(5, undefined);
  });

  it('with afterPoll, a value that arrives in the same turn as the timer still counts', async () => {
    // A reply due in the same turn as the bound, as on a busy event loop: the work's timer (due first)
    // and the bound's are both past due when the loop next runs timers, because the loop is held past
    // both; the work's value comes after the poll phase, as a socket's reply does. A slower machine
    // only holds the loop longer, so the order below does not depend on timing.
    const sameTurn = (afterPoll: boolean) => {
      const work = new Promise<string>((resolve) => setTimeout(() => setImmediate(() => resolve('sent in time')), 5));
      const waiting = boundedWait(work, { ms: 20, afterPoll });
      const until = performance.now() + 40;
      while (performance.now() < until);
      return waiting;
    };
    await expect(sameTurn(true)).resolves.toBe('sent in time');
    await expect(sameTurn(false)).resolves.toBeUndefined();
  });

  it('passes on a failure that comes before the bounds, and ignores one after', async () => {
    await expect(boundedWait(Promise.reject(new Error('early')), { ms: 60_000 })).rejects.toThrow('early');

    let failLate!: (error: Error) => void;
    const failing = new Promise<string>((_, reject) => (failLate = reject));
    await expect(boundedWait(failing, { ms: 10 })).resolves.toBeUndefined();
    failLate(new Error('late'));
    await later(5, undefined);
  });
});
