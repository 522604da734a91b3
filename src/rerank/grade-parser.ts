// Reads the model's grades out of whatever text it produced, as it streams in. The model is asked
// for `{"results":[{"id","grade","why"},...]}` but endpoints without structured output wrap it in
// prose or code fences, stop mid-array, or send a bare array. So instead of parsing the whole
// answer once, a small string-aware brace scanner emits every complete `{...}` object the moment
// it closes, and any object with an `id` and a `grade` counts. A deadline cut therefore keeps every
// grade that had fully arrived.
// Only innermost objects (no `{` inside, outside strings) are parsed: a grade has no nested object, and
// parsing every enclosing object again would be quadratic (64 KB of nested braces would parse
// hundreds of MB). So each character is parsed at most once, and a push costs time linear in its chunk.

export interface RawGrade {
  id: string;
  grade: number;
  why: string;
}

/** The fixed grade scale runs 0–3; anything else is not a grade. */
const MIN_GRADE = 0;
export const MAX_GRADE = 3;

/** Characters of a grade's `why` kept (the explanation shows at most 200 of them). */
const MAX_WHY_CHARS = 1_000;

export class GradeStreamParser {
  #text = '';
  #scanned = 0;
  #inString = false;
  #escaped = false;
  /** Start offsets of the objects still open. */
  readonly #open: number[] = [];
  /** Start of the innermost open object when no other object opened inside it yet, else -1. */
  #leafStart = -1;

  /** All text received so far. */
  get text(): string {
    return this.#text;
  }

  /** Feeds more model output; returns the grade objects completed by it, in order. */
  push(chunk: string): RawGrade[] {
    this.#text += chunk;
    const found: RawGrade[] = [];
    const text = this.#text;
    for (let at = this.#scanned; at < text.length; at += 1) {
      const char = text[at];
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (char === '\\') this.#escaped = true;
        else if (char === '"') this.#inString = false;
        continue;
      }
      if (char === '"') this.#inString = true;
      else if (char === '{') {
        this.#open.push(at);
        this.#leafStart = at;
      } else if (char === '}') {
        const start = this.#open.pop();
        if (start === undefined) continue;
        if (start === this.#leafStart) {
          const grade = toGrade(text.slice(start, at + 1));
          if (grade) found.push(grade);
        }
        this.#leafStart = -1;
      }
    }
    this.#scanned = text.length;
    return found;
  }
}

function toGrade(json: string): RawGrade | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const id = normaliseId(record.id);
  const grade = typeof record.grade === 'string' ? Number(record.grade.trim()) : record.grade;
  if (id === undefined || typeof grade !== 'number' || !Number.isInteger(grade)) return undefined;
  if (grade < MIN_GRADE || grade > MAX_GRADE) return undefined;
  // Only a short line of it is ever shown (merge-ranking.ts); keep no more than can be.
  const why = typeof record.why === 'string' ? record.why.slice(0, MAX_WHY_CHARS) : '';
  return { id, grade, why };
}

/** Accepts `t12`, `T12`, ` t12 ` and the bare number 12 (small models drop the prefix). */
function normaliseId(id: unknown): string | undefined {
  if (typeof id === 'number' && Number.isInteger(id) && id > 0) return `t${id}`;
  if (typeof id !== 'string') return undefined;
  const match = /^\s*t?(\d{1,6})\s*$/i.exec(id);
  return match ? `t${Number(match[1])}` : undefined;
}

/** True when the text holds a well-formed answer that simply lists no tools (`{"results": []}`). */
export function isEmptyAnswer(text: string): boolean {
  return /\{\s*"results"\s*:\s*\[\s*\]\s*\}/.test(text);
}
