import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GradeStreamParser, isEmptyAnswer } from '../../src/rerank/grade-parser.js';

const parseAll = (text: string) => new GradeStreamParser().push(text);

describe('GradeStreamParser', () => {
  it('reads the structured answer', () => {
    expect(parseAll('{"results":[{"id":"t1","grade":3,"why":"a"},{"id":"t2","grade":1,"why":"b"}]}')).toEqual([
      { id: 't1', grade: 3, why: 'a' },
      { id: 't2', grade: 1, why: 'b' },
    ]);
  });

  it('emits each grade as soon as its object closes, whatever the chunking', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 40 }), (cuts) => {
        const text =
          '{"results":[{"id":"t1","grade":3,"why":"has } and { and \\" inside"},{"id":"t2","grade":2,"why":"x"}]}';
        const parser = new GradeStreamParser();
        const seen: string[] = [];
        let at = 0;
        for (const cut of cuts) {
          seen.push(...parser.push(text.slice(at, at + cut)).map((grade) => grade.id));
          at += cut;
        }
        seen.push(...parser.push(text.slice(at)).map((grade) => grade.id));
        expect(seen).toEqual(['t1', 't2']);
      }),
    );
  });

  it('keeps the complete grades of a cut answer', () => {
    expect(parseAll('{"results":[{"id":"t1","grade":3,"why":"a"},{"id":"t2","gra').map((grade) => grade.id)).toEqual([
      't1',
    ]);
  });

  it('finds grades in prose, code fences and bare arrays, and normalises ids and numeric strings', () => {
    const text = 'Here:\n```json\n[{"id":"T4","grade":"2","why":"w"}, {"id": 7, "grade": 1}]\n```\nDone.';
    expect(parseAll(text)).toEqual([
      { id: 't4', grade: 2, why: 'w' },
      { id: 't7', grade: 1, why: '' },
    ]);
  });

  it('ignores objects that are not grades on the fixed scale', () => {
    const text =
      '{"id":"t1","grade":4} {"id":"t2","grade":2.5} {"id":"t3"} {"id":"x","grade":1} {"id":"t5","grade":-1} {"grade":3}';
    expect(parseAll(text)).toEqual([]);
  });

  it('tells a well-formed empty answer from garbage', () => {
    expect(isEmptyAnswer('{ "results" : [ ] }')).toBe(true);
    expect(isEmptyAnswer('I cannot help with that.')).toBe(false);
  });
});

describe('GradeStreamParser on hostile answers', () => {
  it('parses only innermost objects, so nesting costs linear time (hang detection)', () => {
    const depth = 30_000;
    const text = `${'{"a":'.repeat(depth)}{"id":"t2","grade":2,"why":"deep"}${'}'.repeat(depth)}${'{'.repeat(depth)}${'}'.repeat(depth)}`;
    const started = performance.now();
    expect(parseAll(text)).toEqual([{ id: 't2', grade: 2, why: 'deep' }]);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('keeps at most 1,000 characters of a why', () => {
    const [grade] = parseAll(`{"id":"t1","grade":3,"why":"${'w'.repeat(50_000)}"}`);
    expect(grade!.why).toHaveLength(1_000);
  });
});
