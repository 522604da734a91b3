import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { canonicalHeaderName, SchemaComponents } from '../../src/openapi/schema-refs.js';

describe('SchemaComponents', () => {
  const Inner = Type.Object({ name: Type.String() }, { $id: 'Inner' });
  const Outer = Type.Object({ items: Type.Array(Inner), note: Type.Optional(Type.String()) }, { $id: 'Outer' });

  it('references every $id schema, nested ones too, and emits each once without $id or TypeBox symbols', () => {
    const components = new SchemaComponents();
    expect(components.reference(Outer)).toEqual({ $ref: '#/components/schemas/Outer' });
    expect(components.reference(Type.Array(Outer))).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/Outer' },
    });
    const schemas = components.toComponents();
    expect(Object.keys(schemas)).toEqual(['Inner', 'Outer']);
    expect(schemas.Outer).toEqual({
      type: 'object',
      required: ['items'],
      properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Inner' } }, note: { type: 'string' } },
    });
    expect(Object.getOwnPropertySymbols(schemas.Inner!)).toEqual([]);
  });

  it('refuses two different schemas under one $id', () => {
    const components = new SchemaComponents();
    components.reference(Inner);
    expect(() => components.reference(Type.Object({ other: Type.Number() }, { $id: 'Inner' }))).toThrow(
      /two different schemas use the \$id "Inner"/,
    );
  });
});

describe('canonicalHeaderName', () => {
  it('capitalises each dash-separated part', () => {
    expect(canonicalHeaderName('x-search-deadline-ms')).toBe('X-Search-Deadline-Ms');
    expect(canonicalHeaderName('x-project-id')).toBe('X-Project-Id');
  });
});
