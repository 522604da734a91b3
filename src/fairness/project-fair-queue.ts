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
 * Waiting items taken round robin by project (first in, first out within a project): with one
 * first-in-first-out line, a project that sent many at once (16 long sub-queries, or request after
 * request) held every other project's work behind all of them. Now a project's next item waits for at
 * most one item of each other project with work waiting.
 */
export class ProjectLine<T> {
  // Projects with waiting items, in turn order (a Map keeps insertion order: the next turn is the first key).
  #byProject = new Map<string, T[]>();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Items of `project` waiting. */
  waitingOf(project: string): number {
    return this.#byProject.get(project)?.length ?? 0;
  }

  push(project: string, item: T): void {
    const items = this.#byProject.get(project);
    if (items === undefined) this.#byProject.set(project, [item]);
    else items.push(item);
    this.#size += 1;
  }

  shift(): T | null {
    const next = this.#byProject.entries().next();
    if (next.done) return null;
    const [project, items] = next.value;
    const item = items.shift()!;
    // This project goes to the back of the line (or out of it, with nothing left).
    this.#byProject.delete(project);
    if (items.length > 0) this.#byProject.set(project, items);
    this.#size -= 1;
    return item;
  }

  /** Puts back an item taken but not handled: first again, its project's turn first. */
  unshift(project: string, item: T): void {
    const items = this.#byProject.get(project) ?? [];
    items.unshift(item);
    this.#byProject = new Map([[project, items], ...[...this.#byProject].filter(([other]) => other !== project)]);
    this.#size += 1;
  }

  /** Takes `item` out of the line; false when it was not waiting (taken already, or removed). */
  remove(project: string, item: T): boolean {
    const items = this.#byProject.get(project);
    const at = items?.indexOf(item) ?? -1;
    if (items === undefined || at < 0) return false;
    items.splice(at, 1);
    if (items.length === 0) this.#byProject.delete(project);
    this.#size -= 1;
    return true;
  }
}

/**
 * The embedded encoder's waiting tasks as piscina's task queue, in ProjectLine's turns (the project a
 * task is marked with by forProject). Its waits are bounded by the caller (boundedWait) and never abort
 * a task; the one-thread pools that end waits at a deadline keep their own line (one-thread-pool.ts).
 */
export class ProjectFairQueue implements TaskQueue {
  readonly #line = new ProjectLine<PiscinaTask>();

  get size(): number {
    return this.#line.size;
  }

  /** Tasks of `project` waiting (not the one the worker may be running). */
  waitingOf(project: string): number {
    return this.#line.waitingOf(project);
  }

  push(task: PiscinaTask): void {
    this.#line.push(projectOf(task), task);
  }

  shift(): PiscinaTask | null {
    return this.#line.shift();
  }

  /** Puts back a task piscina took but could not hand to a worker: first again, its project's turn first. */
  unshift(task: PiscinaTask): void {
    this.#line.unshift(projectOf(task), task);
  }

  remove(task: PiscinaTask): void {
    this.#line.remove(projectOf(task), task);
  }
}
