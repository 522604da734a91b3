import { describe, expect, it } from 'vitest';
import { ToolSetReferences, UNKEPT_RETRY_MS } from '../src/tool-set-references.js';

const A = 'A'.repeat(43);

describe('ToolSetReferences', () => {
  const clocked = () => {
    const clock = { now: 0 };
    return { clock, references: new ToolSetReferences(() => clock.now) };
  };

  it('keeps referring after a refusal that a reference answer then confirms (a restarted service)', () => {
    const { references } = clocked();
    references.learn(A, false);
    references.refused(references.held(A)!);
    expect(references.held(A)).toBeUndefined();
    references.learn(A, true); // the resent list's answer
    references.learn(A, false); // a reference answered
    references.refused(references.held(A)!); // a later restart
    references.learn(A, true);
    expect(references.held(A)).toEqual({ id: A, afterRefusal: true });
  });

  it('sends a list in full for a while once its id is refused again right after the resend, then tries again', () => {
    const { clock, references } = clocked();
    references.learn(A, false);
    references.refused(references.held(A)!);
    references.learn(A, true);
    references.refused(references.held(A)!);
    references.learn(A, true);
    expect(references.held(A)).toBeUndefined();
    expect(references.any).toBe(false);
    clock.now += UNKEPT_RETRY_MS - 1;
    references.learn(A, false);
    expect(references.held(A)).toBeUndefined();
    clock.now += 1;
    references.learn(A, false);
    expect(references.held(A)).toEqual({ id: A, afterRefusal: false });
  });

  it('concurrent searches refused on one belief (a restart) do not count as the service not keeping the list', () => {
    const { references } = clocked();
    references.learn(A, false);
    const belief = references.held(A)!;
    references.refused(belief);
    references.learn(A, true); // the first search's resend is answered
    references.refused(belief); // the second search's refusal, of the same reference sent before
    expect(references.held(A)).toEqual({ id: A, afterRefusal: true });
  });

  it('remembers a bounded number of ids, the least recently answered out first', () => {
    const { references } = clocked();
    const ids = Array.from({ length: 17 }, (_, i) => String(i).padStart(43, 'x'));
    for (const id of ids) references.learn(id, false);
    expect(references.held(ids[0])).toBeUndefined();
    expect(references.held(ids[16])).toBeDefined();
  });
});
