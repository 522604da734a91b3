/**
 * Starts measuring the CPU time of a synchronous piece of work on this thread; the function returned
 * gives it in ms. Bounded from above: the process's CPU time also counts other threads (the ranking
 * and filter threads, the encoder, the garbage collector's helpers), and wall time also counts the time
 * a busy host gave to other processes; the piece cannot have used more than either. Node 20 has no
 * per-thread figure (process.threadCpuUsage is Node 23.9+).
 */
export function startCpu(): () => number {
  const startedAt = performance.now();
  const cpuBefore = process.cpuUsage();
  return () => {
    const wallMs = performance.now() - startedAt;
    const { user, system } = process.cpuUsage(cpuBefore);
    return Math.min(wallMs, (user + system) / 1000);
  };
}
