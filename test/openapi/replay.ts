/**
 * Recorded v1 exchanges: a request and the shape of the answer the service gave (status, the
 * version header, every field's JSON type, the order of the top results). Replaying them against
 * today's service catches breaking changes; additive ones (new fields) pass, as the compatibility
 * rules in openapi.yaml allow.
 */

export type Shape = 'string' | 'number' | 'boolean' | 'null' | Shape[] | { [field: string]: Shape };

export interface RecordedExchange {
  name: string;
  request: { method: 'POST'; path: string; headers: Record<string, string>; body: unknown };
  response: {
    status: number;
    headers: { 'content-type': string; 'api-version': string };
    shape: Shape;
    /** For searches: the toolKeys of the first results, in order. */
    topToolKeys?: string[];
  };
}

/** The JSON type tree of a value; an array's shape merges the fields of all its items. */
export function shapeOf(value: unknown): Shape {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    const merged: Record<string, Shape> = {};
    let scalar: Shape | undefined;
    for (const item of value) {
      const shape = shapeOf(item);
      if (typeof shape === 'object' && !Array.isArray(shape)) Object.assign(merged, shape);
      else scalar = shape;
    }
    if (scalar !== undefined) return [scalar];
    return Object.keys(merged).length > 0 ? [merged] : [];
  }
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, item]) => [key, shapeOf(item)]),
    );
  }
  return typeof value as 'string' | 'number' | 'boolean';
}

/**
 * Where `actual` breaks `recorded`: a field that disappeared or changed type. Fields that are new in
 * `actual` are fine (additive change). Array shapes merge all items, so an optional field must still
 * appear in at least one item of the same exchange.
 */
export function breakingDifferences(recorded: Shape, actual: Shape, path = ''): string[] {
  if (typeof recorded === 'string' || typeof actual === 'string') {
    return recorded === actual
      ? []
      : [`${path || '/'}: was ${JSON.stringify(recorded)}, now ${JSON.stringify(actual)}`];
  }
  if (Array.isArray(recorded) !== Array.isArray(actual)) {
    return [`${path || '/'}: was ${Array.isArray(recorded) ? 'an array' : 'an object'}, now not`];
  }
  if (Array.isArray(recorded) && Array.isArray(actual)) {
    if (recorded.length === 0) return [];
    if (actual.length === 0) return [`${path}/*: items disappeared`];
    return breakingDifferences(recorded[0]!, actual[0]!, `${path}/*`);
  }
  const was = recorded as Record<string, Shape>;
  const now = actual as Record<string, Shape>;
  return Object.keys(was).flatMap((field) =>
    now[field] === undefined
      ? [`${path}/${field}: missing`]
      : breakingDifferences(was[field]!, now[field]!, `${path}/${field}`),
  );
}
