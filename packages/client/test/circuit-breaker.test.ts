import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../src/circuit-breaker.js';
import { parseRetryAfter } from '../src/errors.js';

describe('CircuitBreaker', () => {
  const clocked = (options: ConstructorParameters<typeof CircuitBreaker>[0] = {}) => {
    const clock = { now: 0 };
    return { clock, breaker: new CircuitBreaker({ ...options, now: () => clock.now }) };
  };

  it('honours a custom threshold and cool-down', () => {
    const { clock, breaker } = clocked({ failureThreshold: 2, cooldownMs: 1000 });
    breaker.failure();
    expect(breaker.tryAcquire()).toBe(true);
    breaker.failure();
    expect(breaker.tryAcquire()).toBe(false);
    clock.now = 999;
    expect(breaker.tryAcquire()).toBe(false);
    clock.now = 1000;
    expect(breaker.tryAcquire()).toBe(true);
    expect(breaker.tryAcquire()).toBe(false); // the probe is in flight
  });

  it('caps Retry-After at maxRetryAfterMs', () => {
    const { breaker } = clocked({ maxRetryAfterMs: 60_000 });
    breaker.failure(3_600_000);
    expect(breaker.snapshot()).toMatchObject({ state: 'open', retryAt: 60_000 });
  });

  it('Retry-After: 0 allows a probe straight away', () => {
    const { breaker } = clocked();
    breaker.failure(0);
    expect(breaker.tryAcquire()).toBe(true);
  });
});

describe('parseRetryAfter', () => {
  it.each<[string | null, number | undefined]>([
    ['120', 120_000],
    [' 0 ', 0],
    ['Wed, 21 Oct 2015 07:28:30 GMT', 30_000],
    ['Wed, 21 Oct 2015 07:27:00 GMT', 0],
    ['soon', undefined],
    ['-5', undefined],
    [null, undefined],
  ])('%j → %j', (header, expected) => {
    expect(parseRetryAfter(header, Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(expected);
  });
});
