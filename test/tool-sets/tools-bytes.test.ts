// Finding a search body's `tools` in its bytes without parsing it (src/tool-sets/tools-bytes.ts).
import { describe, expect, it } from 'vitest';
import { toolsValueSpan } from '../../src/tool-sets/tools-bytes.js';

const spanText = (body: string) => {
  const bytes = Buffer.from(body);
  const span = toolsValueSpan(bytes);
  return span && bytes.subarray(span.start, span.end).toString();
};

/** A JSON value of random shape, with the characters that make strings hard to skip. */
function randomValue(random: () => number, depth = 0): unknown {
  const pick = random();
  if (depth > 3 || pick < 0.3) {
    const texts = ['"tools"', 'a\\"b', '\\', '{[', ']}', 'é 日本 😀', 'tools', ',:', ''];
    // Half end with the text itself: a string may end in an escaped backslash.
    return texts[Math.floor(random() * texts.length)]! + (random() < 0.5 ? String(Math.floor(random() * 100)) : '');
  }
  if (pick < 0.4) return [null, true, false, -1.5e3, 0][Math.floor(random() * 5)];
  if (pick < 0.7) return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1));
  const keys = ['tools', 'name', 'x"y', 'servers', 'a\\b'];
  return Object.fromEntries(
    Array.from({ length: Math.floor(random() * 4) }, () => [
      keys[Math.floor(random() * keys.length)]!,
      randomValue(random, depth + 1),
    ]),
  );
}

function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('toolsValueSpan', () => {
  it("gives exactly the top-level tools' JSON, wherever the key stands and whatever the values around it hold", () => {
    const random = seeded(7);
    for (let round = 0; round < 500; round += 1) {
      const body: Record<string, unknown> = {};
      for (let index = Math.floor(random() * 3); index > 0; index -= 1) body[`k${index}`] = randomValue(random);
      body.tools = randomValue(random);
      body.query = [randomValue(random)];
      const text = JSON.stringify(body, null, [undefined, 2, '\t'][round % 3]);
      const bytes = Buffer.from(text);
      const span = toolsValueSpan(bytes)!;
      // The span parses as the tools, and the body with another value there parses as the same body
      // with that value: what the service relies on to parse only the rest.
      expect(JSON.parse(bytes.subarray(span.start, span.end).toString())).toEqual(body.tools);
      const rest = Buffer.concat([bytes.subarray(0, span.start), Buffer.from('[]'), bytes.subarray(span.end)]);
      expect(JSON.parse(rest.toString())).toEqual({ ...body, tools: [] });
    }
  });

  it('places the value of a body sent with spaces around every token', () => {
    expect(spanText(' \r\n{ "query" : [ "a" ] , "tools"\t:\n[ {"name":"x"} ] }\n')).toBe('[ {"name":"x"} ]');
    expect(spanText('{"tools":"a\\"]}"}')).toBe('"a\\"]}"');
    expect(spanText('{"tools":12.5e3,"query":[]}')).toBe('12.5e3');
  });

  it('finds only the top-level key, not one nested in another value or spelled inside a string', () => {
    expect(spanText('{"context":{"tools":[1]},"q":"\\"tools\\":[2]","tools":[3]}')).toBe('[3]');
    expect(spanText('{"servers":[{"tools":[1]}]}')).toBeUndefined();
  });

  it('gives nothing when the JSON could mean another tools than the one found', () => {
    // Twice: JSON.parse keeps the last one.
    expect(spanText('{"tools":[1],"tools":[2]}')).toBeUndefined();
    // An escaped key that reads as "tools".
    expect(spanText('{"tools":[1],"to\\u006fls":[2]}')).toBeUndefined();
    expect(spanText('{"to\\u006fls":[2]}')).toBeUndefined();
  });

  it('gives nothing for a body that is not one object', () => {
    for (const body of [
      '[]',
      '"tools"',
      '{"tools":[1]} {}',
      '{"tools":[1]',
      '{"tools" [1]}',
      '{"tools":[1] "q":1}',
      '',
      '\uFEFF{"tools":[]}',
      '{"tools":"open',
    ]) {
      expect(spanText(body), body).toBeUndefined();
    }
  });

  it("skips the tools value by the caller's rule, and gives nothing when the rule stops", () => {
    const bytes = Buffer.from('{"tools":[1,2,3],"query":["a"]}');
    expect(toolsValueSpan(bytes, (at) => at + 7)).toEqual({ start: 9, end: 16 });
    expect(toolsValueSpan(bytes, () => -1)).toBeUndefined();
  });
});
