// One worker thread shared by every project, its tasks taken in turns by project (ProjectLine), and a
// wait for it that ends at the caller's signal (a search's deadline). The line is kept here, in front of
// piscina, which is handed one task at a time: piscina's own queue put a task that carried an abort signal
// in a line of its own, first in first out and before the project queue, so that every search (each
// carries its deadline) skipped the turns, last come first served (4 tasks of one project and 1 of
// another ran A1 B5 A4 A3 A2); and aborting a task the worker had begun ended the thread, whose restart
// every project's task then waited for. Here a signal takes a task out of the line only while it waits;
// a task the thread has begun runs to its end (each worker bounds its own work).
import { Piscina } from 'piscina';
import { ProjectLine } from './project-fair-queue.js';

/** The wait for the thread ended (the signal aborted) before the thread took the task. */
export class ThreadWaitEnded extends Error {
  /** CPU time the caller spent on the task before the wait ended (ms), which its project is charged. */
  cpuMs = 0;

  constructor() {
    super('the wait for the thread ended before it took the task');
    this.name = 'ThreadWaitEnded';
  }
}

/** A task as the thread takes it: made then, so that what it carries is current when it runs. */
interface ThreadTask<Task> {
  task: Task;
  /** Buffers moved to the thread rather than copied. */
  transferList?: ArrayBuffer[];
}

interface Waiting<Task, Result> {
  make: () => ThreadTask<Task>;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
  /** Stops listening to the caller's signal (once the thread took the task). */
  settle: () => void;
}

export class OneThreadPool<Task, Result> {
  readonly #pool: Piscina<Task, Result>;
  readonly #line = new ProjectLine<Waiting<Task, Result>>();
  #busy = false;

  /**
   * `worker`: the worker's module (a .ts file from the TypeScript sources, tests and bench, which tsx
   * loads); `minThreads` 1 starts the thread now; `idleTimeout`: how long it is kept without work.
   */
  constructor(options: { worker: URL; minThreads: 0 | 1; idleTimeout: number }) {
    const fromSource = options.worker.pathname.endsWith('.ts');
    this.#pool = new Piscina<Task, Result>({
      filename: options.worker.href,
      minThreads: options.minThreads,
      maxThreads: 1,
      idleTimeout: options.idleTimeout,
      // V8 flags such as --expose-gc (the deadline tests') apply to the whole process and are refused in a worker's execArgv.
      ...(fromSource
        ? { execArgv: [...process.execArgv.filter((flag) => !/^--expose[-_]gc$/.test(flag)), '--import', 'tsx'] }
        : {}),
    });
  }

  /** Tasks waiting for the thread (not the one it runs). */
  get waiting(): number {
    return this.#line.size;
  }

  /** Tasks of `project` waiting for the thread. */
  waitingOf(project: string): number {
    return this.#line.waitingOf(project);
  }

  /**
   * Runs the task `make` gives when the thread takes it, in `project`'s turn. Rejects with
   * ThreadWaitEnded when `signal` aborts first (or had); once taken, the task runs to its end.
   */
  run(project: string, make: () => ThreadTask<Task>, signal?: AbortSignal): Promise<Result> {
    if (signal?.aborted) return Promise.reject(new ThreadWaitEnded());
    return new Promise<Result>((resolve, reject) => {
      const waiting: Waiting<Task, Result> = { make, resolve, reject, settle: () => {} };
      if (signal !== undefined) {
        const onAbort = () => {
          if (this.#line.remove(project, waiting)) reject(new ThreadWaitEnded());
        };
        signal.addEventListener('abort', onAbort, { once: true });
        waiting.settle = () => signal.removeEventListener('abort', onAbort);
      }
      this.#line.push(project, waiting);
      this.#next();
    });
  }

  #next(): void {
    if (this.#busy) return;
    const waiting = this.#line.shift();
    if (waiting === null) return;
    this.#busy = true;
    waiting.settle();
    let work: Promise<Result>;
    try {
      const { task, transferList } = waiting.make();
      work = this.#pool.run(task, transferList ? { transferList } : {});
    } catch (error) {
      work = Promise.reject(error);
    }
    work.then(waiting.resolve, waiting.reject).finally(() => {
      this.#busy = false;
      this.#next();
    });
  }

  /** Ends the thread; tasks still waiting are refused. */
  close(): Promise<void> {
    for (let waiting = this.#line.shift(); waiting !== null; waiting = this.#line.shift()) {
      waiting.settle();
      waiting.reject(new Error('the thread was closed'));
    }
    return this.#pool.destroy();
  }
}
