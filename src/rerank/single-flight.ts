// Single flight: identical concurrent requests (same project, same prompt) share one model call.
// Each waits for it only until its own deadline; the call is aborted once nobody waits any more.
import { boundedWait, type DegradedReason } from '@catalog-search/core';
import type { TokenUsage } from './stage.js';
import type { RawGrade } from './grade-parser.js';

export interface FlightResult {
  grades: RawGrade[];
  complete: boolean;
  failure?: DegradedReason;
  usage?: TokenUsage;
  modelMs: number;
}

/** One model call that identical concurrent requests share. */
export interface Flight {
  /** Valid grades received so far, in the model's order. */
  grades: RawGrade[];
  controller: AbortController;
  participants: number;
  done: Promise<FlightResult>;
}

/** The calls in flight of one project, by prompt key. */
export class SingleFlights {
  readonly #flights = new Map<string, Flight>();

  get(key: string): Flight | undefined {
    return this.#flights.get(key);
  }

  /**
   * Starts `call` as the flight for `key` until it settles. `backstopAt` (`performance.now()` ms):
   * the waiting requests stop waiting at their deadlines and abort the call once the last has gone;
   * this aborts it at the starting request's deadline in case none is left to do it.
   */
  start(key: string, call: (flight: Flight) => Promise<FlightResult>, backstopAt: number): Flight {
    const flight: Flight = {
      grades: [],
      controller: new AbortController(),
      participants: 0,
      done: Promise.resolve(undefined as never),
    };
    const timer = setTimeout(() => flight.controller.abort(), Math.max(0, backstopAt - performance.now()));
    flight.done = call(flight).finally(() => {
      clearTimeout(timer);
      this.#flights.delete(key);
    });
    this.#flights.set(key, flight);
    return flight;
  }
}

/** Waits for the shared call, but never past this request's own `deadline` or abort. */
export async function participate(flight: Flight, signal: AbortSignal, deadline: number): Promise<FlightResult> {
  flight.participants += 1;
  const started = performance.now();
  try {
    const result = await boundedWait(flight.done, { signal, ms: deadline - started });
    if (result !== undefined) return result;
    const grades = [...flight.grades];
    return {
      grades,
      complete: false,
      failure: grades.length > 0 ? 'partial' : 'timeout',
      modelMs: performance.now() - started,
    };
  } finally {
    flight.participants -= 1;
    // Nobody is waiting any more (all deadlines passed or callers gone): stop paying for tokens.
    // Deferred: tearing down the connection costs time that belongs to no one's answer, so the
    // answers (promise continuations) go out first.
    if (flight.participants === 0) setImmediate(() => flight.participants === 0 && flight.controller.abort());
  }
}
