// A busy host for the scenarios that must hold at load: busy-loop child processes beside the service,
// as other work on a small production node would be. Each child spins one core at full use until
// stopped (or until the test worker exits: they are killed with it).
import { spawn, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';

export interface CpuBurner {
  /** The one-minute load average now (it rises over a minute after the burners start). */
  load(): number;
  stop(): Promise<void>;
}

const burning = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of burning) child.kill('SIGKILL');
});

/** Starts `processes` busy loops (5 on a 2-core machine puts its load at ≥ 5 within a minute). */
export function burnCpu(processes: number): CpuBurner {
  const children = Array.from({ length: processes }, () => {
    const child = spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' });
    burning.add(child);
    return child;
  });
  return {
    load: () => Math.round(loadavg()[0]! * 10) / 10,
    stop: () =>
      Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              burning.delete(child);
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGKILL');
            }),
        ),
      ).then(() => undefined),
  };
}
