// OneThreadPool: one worker thread whose waiting tasks take turns by project, and whose waits end at the
// caller's signal without cutting a task the thread has begun. A worker that holds each task until the
// test opens its gate (fixtures/gated-worker.ts) makes the order of events the test's, not the clock's.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { abortAfter } from '@catalog-search/core';
import { afterAll, describe, expect, it } from 'vitest';
import { OneThreadPool, ThreadWaitEnded } from '../../src/fairness/one-thread-pool.js';
import type { GatedTask } from '../fixtures/gated-worker.js';

type Answer = { name: string; threadId: number };
const WORKER = new URL('../fixtures/gated-worker.ts', import.meta.url);
const pools: OneThreadPool<GatedTask, Answer>[] = [];
function pool(): OneThreadPool<GatedTask, Answer> {
  const made = new OneThreadPool<GatedTask, Answer>({ worker: WORKER, minThreads: 0, idleTimeout: 60_000 });
  pools.push(made);
  return made;
}
afterAll(() => Promise.all(pools.map((made) => made.close())));

const gate = () => new Int32Array(new SharedArrayBuffer(4));
const open = (shut: Int32Array) => {
  Atomics.store(shut, 0, 1);
  Atomics.notify(shut, 0);
};
/** Resolves once `check` holds, polled between turns of the loop. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 1));
}

describe('OneThreadPool', () => {
  it("takes waiting tasks in turns by project, each carrying its deadline's signal", async () => {
    const threads = pool();
    const signal = new AbortController().signal;
    // The first task holds the thread until all are sent; the others' gates are open: each ends once taken.
    const first = gate();
    const opened = () => {
      const shut = gate();
      open(shut);
      return shut;
    };
    const done: string[] = [];
    const sent = [
      ['a', 'a1', first],
      ['a', 'a2', opened()],
      ['a', 'a3', opened()],
      ['a', 'a4', opened()],
      ['b', 'b1', opened()],
    ] as const;
    const runs = sent.map(([project, name, shut]) =>
      threads
        .run(project, () => ({ task: { name, gate: shut } }), signal)
        .then((answer) => void done.push(answer.name)),
    );
    expect(threads.waiting).toBe(4);
    expect(threads.waitingOf('a')).toBe(3);
    open(first);
    await Promise.all(runs);
    // piscina's own queue, given a signal, ran these a1 b1 a4 a3 a2 (last come, first served).
    expect(done).toEqual(['a1', 'a2', 'b1', 'a3', 'a4']);
  });

  it('ends a wait at its signal and leaves the task the thread has begun to finish on the same thread', async () => {
    const threads = pool();
    const held = gate();
    const running = new AbortController();
    const waiting = new AbortController();
    const begun = threads.run('a', () => ({ task: { name: 'begun', gate: held } }), running.signal);
    let made = false;
    const queued = threads.run(
      'b',
      () => {
        made = true;
        return { task: { name: 'queued', gate: gate() } };
      },
      waiting.signal,
    );
    const after = gate();
    const later = threads.run('c', () => ({ task: { name: 'later', gate: after } }));
    running.abort();
    waiting.abort();
    await expect(queued).rejects.toBeInstanceOf(ThreadWaitEnded);
    expect(made).toBe(false);
    expect(threads.waiting).toBe(1);
    open(held);
    open(after);
    const [first, last] = await Promise.all([begun, later]);
    expect(first.name).toBe('begun');
    expect(last.threadId).toBe(first.threadId);
    // A signal that had already aborted: refused at once.
    await expect(
      threads.run('d', () => ({ task: { name: 'd', gate: gate() } }), waiting.signal),
    ).rejects.toBeInstanceOf(ThreadWaitEnded);
  });

  it("ends a wait at a deadline's timer while major collections are forced", async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as (options: { type: 'major'; execution: 'sync' }) => void;
    const threads = pool();
    const held = gate();
    const begun = threads.run('a', () => ({ task: { name: 'begun', gate: held } }));
    const collecting = setInterval(() => gc({ type: 'major', execution: 'sync' }), 5);
    try {
      // Only the wait holds the deadline: nothing else keeps its signal reachable.
      const waited = threads.run('b', () => ({ task: { name: 'b', gate: gate() } }), abortAfter(30).signal);
      await expect(waited).rejects.toBeInstanceOf(ThreadWaitEnded);
      await until(() => threads.waiting === 0);
    } finally {
      clearInterval(collecting);
      open(held);
    }
    expect((await begun).name).toBe('begun');
  });
});
