// Relevance and scores leave the service and the client with three decimals: more would only
// carry noise, and the same rounding everywhere keeps their answers comparable.

/** `value` rounded to 3 decimals (half up, as Math.round does). */
export function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
