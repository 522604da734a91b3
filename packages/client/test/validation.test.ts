import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { ToolInfoSchema } from '@catalog-search/core';
import { isPlainlyValidTool } from '../src/validation.js';
import { TOOLS } from './loopback.js';

// The client checks tools with a hand-written copy of ToolInfoSchema (fast), and falls back to the
// schema itself only to name a bad field. The copy must accept exactly what the schema accepts.

/** Values for one field: right and wrong types, empty strings, undefined, nested junk. */
const fieldValue = fc.oneof(
  fc.string(),
  fc.constant(''),
  fc.constant(undefined),
  fc.constant(null),
  fc.integer(),
  fc.boolean(),
  fc.array(fc.string()),
  fc.array(fc.anything()),
  fc.object(),
  fc.date(),
);
const FIELDS = ['toolKey', 'toolName', 'serverName', 'description', 'title', 'inputSchema', 'annotations', 'tags'];
const toolLike = fc.record(Object.fromEntries(FIELDS.map((field) => [field, fieldValue])), { requiredKeys: [] });
/** Mostly-valid tools with one field spoilt, so both outcomes are well represented. */
const nearlyValid = fc
  .tuple(fc.constantFrom(...TOOLS), fc.constantFrom(...FIELDS), fieldValue)
  .map(([tool, field, value]) => ({ ...tool, inputSchema: { type: 'object' }, tags: ['a'], [field]: value }));

describe('the hand-written tool check', () => {
  it('accepts exactly what Value.Check(ToolInfoSchema) accepts', () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof(toolLike, nearlyValid, fc.anything()), (value) => {
        const expected = Value.Check(ToolInfoSchema, value);
        if (expected) accepted += 1;
        expect(isPlainlyValidTool(value)).toBe(expected);
      }),
      { numRuns: 5000 },
    );
    // Both outcomes were exercised.
    expect(accepted).toBeGreaterThan(200);
    expect(accepted).toBeLessThan(4800);
  });

  it('accepts real tools', () => {
    for (const tool of TOOLS) expect(isPlainlyValidTool(tool)).toBe(true);
  });

  it('was written for this ToolInfoSchema: if core changes the schema, update isPlainlyValidTool too', () => {
    // The schema without its prose (JSON drops TypeBox's symbol keys; `required` shows what is optional).
    const shape: unknown = JSON.parse(JSON.stringify(ToolInfoSchema, (key, value: unknown) => (key === 'description' && typeof value === 'string' ? undefined : value)));
    expect(shape).toEqual({
      $id: 'ToolInfo',
      type: 'object',
      additionalProperties: true,
      required: ['toolKey', 'toolName', 'serverName'],
      properties: {
        toolKey: { type: 'string', minLength: 1 },
        toolName: { type: 'string', minLength: 1 },
        serverName: { type: 'string' },
        description: { type: 'string' },
        title: { type: 'string' },
        inputSchema: { type: 'object', additionalProperties: true, properties: {} },
        annotations: { type: 'object', additionalProperties: true, properties: {} },
        tags: { type: 'array', items: { type: 'string' } },
      },
    });
  });
});
