/**
 * The long rankings under way (those that have paused at least once), by project. A long ranking that
 * pauses beside other projects' searches lets the small ones finish first (each needs several turns of
 * the event loop, and waited a slice of the big ranking at every one of them), but only takes turns with
 * other long ones: were they to wait for each other, neither would run.
 */
export class RankingTurns {
  readonly #byProject = new Map<string, number>();
  #total = 0;

  start(projectId: string): void {
    this.#byProject.set(projectId, (this.#byProject.get(projectId) ?? 0) + 1);
    this.#total += 1;
  }

  end(projectId: string): void {
    const left = (this.#byProject.get(projectId) ?? 1) - 1;
    if (left > 0) this.#byProject.set(projectId, left);
    else this.#byProject.delete(projectId);
    this.#total -= 1;
  }

  /** Long rankings of projects other than `projectId`. */
  otherThan(projectId: string): number {
    return this.#total - (this.#byProject.get(projectId) ?? 0);
  }
}
