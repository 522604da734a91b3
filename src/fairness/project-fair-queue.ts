import { queueOptionsSymbol, type PiscinaTask, type TaskQueue } from 'piscina';

/** What a task of the embedded encoder carries for its queue (piscina's queue options, never sent to the worker). */
interface ProjectQueueOptions {
  project: string;
}

/** A task's payload marked with its project, for ProjectFairQueue (symbol keys are not cloned to the worker). */
export function forProject<T extends object>(payload: T, project: string): T {
  return Object.assign(payload, { [queueOptionsSymbol]: { project } satisfies ProjectQueueOptions });
}

const projectOf = (task: PiscinaTask): string =>
  (task[queueOptionsSymbol] as ProjectQueueOptions | null)?.project ?? '';

/**
 * The embedded encoder's waiting tasks, taken round robin by project (first in, first out within a
 * project): with one first-in-first-out queue, a project that sent many texts at once (16 long
 * sub-queries, or request after request) held every other project's query behind all of them. Now a
 * project's next task waits for at most one task of each other project with work waiting.
 */
export class ProjectFairQueue implements TaskQueue {
  // Projects with waiting tasks, in turn order (a Map keeps insertion order: the next turn is the first key).
  #byProject = new Map<string, PiscinaTask[]>();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Tasks of `project` waiting (not the one the worker may be running). */
  waitingOf(project: string): number {
    return this.#byProject.get(project)?.length ?? 0;
  }

  push(task: PiscinaTask): void {
    const project = projectOf(task);
    const tasks = this.#byProject.get(project);
    if (tasks === undefined) this.#byProject.set(project, [task]);
    else tasks.push(task);
    this.#size += 1;
  }

  shift(): PiscinaTask | null {
    const next = this.#byProject.entries().next();
    if (next.done) return null;
    const [project, tasks] = next.value;
    const task = tasks.shift()!;
    // This project goes to the back of the line (or out of it, with nothing left).
    this.#byProject.delete(project);
    if (tasks.length > 0) this.#byProject.set(project, tasks);
    this.#size -= 1;
    return task;
  }

  /** Puts back a task piscina took but could not hand to a worker: first again, its project's turn first. */
  unshift(task: PiscinaTask): void {
    const project = projectOf(task);
    const tasks = this.#byProject.get(project) ?? [];
    tasks.unshift(task);
    this.#byProject = new Map([[project, tasks], ...[...this.#byProject].filter(([other]) => other !== project)]);
    this.#size += 1;
  }

  remove(task: PiscinaTask): void {
    const project = projectOf(task);
    const tasks = this.#byProject.get(project);
    const at = tasks?.indexOf(task) ?? -1;
    if (tasks === undefined || at < 0) return;
    tasks.splice(at, 1);
    if (tasks.length === 0) this.#byProject.delete(project);
    this.#size -= 1;
  }
}
