// What the benches that compare two sides share. The machines are shared and change speed from
// minute to minute, so both sides are measured in the same rounds, and the order alternates between
// rounds so that neither side is always the one measured second.

export const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** `measureA` and `measureB` once per round, A first in even rounds and B first in odd ones. */
export async function alternatingRounds(
  rounds: number,
  measureA: () => Promise<number>,
  measureB: () => Promise<number>,
): Promise<{ a: number[]; b: number[] }> {
  const a: number[] = [];
  const b: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    if (round % 2 === 0) {
      a.push(await measureA());
      b.push(await measureB());
    } else {
      b.push(await measureB());
      a.push(await measureA());
    }
  }
  return { a, b };
}

/**
 * Allocates a random amount (0 to about 2 MB) of short-lived garbage, untimed, before a timed run.
 * A loop that allocates the same each run (a fresh copy of one list, then the search) lets the young
 * generation's collections lock onto one phase of it: always inside the timed search, or never. Such a
 * collection copies the live list, several milliseconds, so the lock alone moved a case by up to 1.5×
 * with no change in the code measured (docs/performance.md#collections-out-of-phase). Random garbage
 * spreads the collections over the loop, in proportion to what each part allocates.
 */
export function spreadCollections(): number {
  const junk = Array.from({ length: Math.floor(Math.random() * 40_000) }, (_, at) => ({ at }));
  return junk.length;
}
