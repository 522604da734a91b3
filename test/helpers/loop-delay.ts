// How late this process's timers ran while a test waited on one: a deadline's timer fires once the
// event loop is free and the process is scheduled, so on a busy machine it is late by up to the
// longest delay measured meanwhile. A bound "deadline + margin + that delay" holds at any load, and
// still fails a wait that ignored its deadline (late by the wait's length, with a free loop).
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface LoopDelayWatch {
  /** Stops watching; the longest delay seen, in ms, the last stretch of work before this call included. */
  stop(): Promise<number>;
}

export function watchLoopDelay(): LoopDelayWatch {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  return {
    async stop() {
      // One more turn of the timers: the sampler's, due first, times the work that just ended.
      await new Promise((resolve) => setTimeout(resolve, 10));
      histogram.disable();
      return histogram.max / 1e6;
    },
  };
}
