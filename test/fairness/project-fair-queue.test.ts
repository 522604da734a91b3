// The embedded encoder's queue on its own: turns between projects, first in first out within one,
// and the task piscina puts back keeping its place.
import type { PiscinaTask } from 'piscina';
import { describe, expect, it } from 'vitest';
import { forProject, ProjectFairQueue } from '../../src/fairness/project-fair-queue.js';

// piscina's tasks read their queue options from the payload (TaskInfo's getter); these stand in for them.
const task = (project: string, name: string) => forProject({ name }, project) as unknown as PiscinaTask;
const drain = (queue: ProjectFairQueue) => {
  const names: string[] = [];
  for (let next = queue.shift(); next !== null; next = queue.shift())
    names.push((next as unknown as { name: string }).name);
  return names;
};

describe('ProjectFairQueue', () => {
  it('takes one task of each project with work in turn, in the order each project sent them', () => {
    const queue = new ProjectFairQueue();
    for (const name of ['x1', 'x2', 'x3', 'x4']) queue.push(task('x', name));
    queue.push(task('y', 'y1'));
    queue.push(task('z', 'z1'));
    queue.push(task('y', 'y2'));
    expect(queue.size).toBe(7);
    expect(queue.waitingOf('x')).toBe(4);
    expect(drain(queue)).toEqual(['x1', 'y1', 'z1', 'x2', 'y2', 'x3', 'x4']);
    expect(queue.size).toBe(0);
    expect(queue.shift()).toBeNull();
  });

  it('puts a task piscina could not hand to a worker back first, with its turn', () => {
    const queue = new ProjectFairQueue();
    queue.push(task('x', 'x1'));
    queue.push(task('x', 'x2'));
    queue.push(task('y', 'y1'));
    const first = queue.shift()!;
    queue.unshift(first);
    expect(drain(queue)).toEqual(['x1', 'y1', 'x2']);
  });

  it('removes an aborted task and forgets a project with nothing left', () => {
    const queue = new ProjectFairQueue();
    const y1 = task('y', 'y1');
    queue.push(task('x', 'x1'));
    queue.push(y1);
    queue.remove(y1);
    queue.remove(y1);
    expect(queue.size).toBe(1);
    expect(queue.waitingOf('y')).toBe(0);
    expect(drain(queue)).toEqual(['x1']);
  });
});
