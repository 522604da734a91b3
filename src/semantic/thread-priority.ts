// The background lane's thread runs at a lower OS priority than the process, so that embedding a new
// list uses the cores searches leave idle instead of taking turns with them. On Linux every thread has
// its own nice value, set by its thread id (`/proc/thread-self`); raising it needs no privilege. At nice
// 10 the encoder's thread leaves a busy thread at nice 0 on the same core most of the CPU
// (docs/performance.md#two-lanes-requests-apart-lists-at-a-lower-priority).
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Raises the calling thread's nice value to at least `nice` (never lowers it: that needs a privilege)
 * and returns the value now in effect, or undefined where a thread's priority cannot be set (not Linux).
 */
export function lowerThisThreadPriority(nice: number): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (getPriority(threadId) < nice) setPriority(threadId, nice);
    return getPriority(threadId);
  } catch {
    return undefined;
  }
}
