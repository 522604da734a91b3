// Turns the TypeBox schemas that carry an `$id` (ToolInfo, SearchRequest, SearchResponse, Problem,
// ...) into `#/components/schemas/<id>` references wherever routes use them, and emits each one
// once under components. @fastify/swagger alone inlines top-level route schemas and hoists only
// nested ones, which gives generated clients anonymous types.
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const COMPONENT_PREFIX = '#/components/schemas/';

export class SchemaComponents {
  private readonly schemas = new Map<string, { json: JsonObject; text: string }>();

  /** A copy of `schema` in which every sub-schema with an `$id` is a reference to its component. */
  reference(schema: unknown): Json {
    if (Array.isArray(schema)) return schema.map((item) => this.reference(item));
    if (schema === null || typeof schema !== 'object') return schema as Json;
    const { $id, ...rest } = schema as Record<string, unknown>;
    const copy: JsonObject = {};
    // Object.entries skips TypeBox's symbol keys (Kind, OptionalKind), which are not JSON Schema.
    for (const [key, value] of Object.entries(rest)) copy[key] = this.reference(value);
    if (typeof $id !== 'string') return copy;
    this.add($id, copy);
    return { $ref: `${COMPONENT_PREFIX}${$id}` };
  }

  private add(id: string, json: JsonObject): void {
    const text = JSON.stringify(json);
    const known = this.schemas.get(id);
    if (known !== undefined && known.text !== text) {
      throw new Error(`OpenAPI: two different schemas use the $id "${id}"; rename one of them`);
    }
    this.schemas.set(id, { json, text });
  }

  /** The components, sorted by name so that the document is byte-for-byte reproducible. */
  toComponents(): Record<string, JsonObject> {
    const names = [...this.schemas.keys()].sort();
    return Object.fromEntries(names.map((name) => [name, this.schemas.get(name)!.json]));
  }
}

/** `x-search-deadline-ms` → `X-Search-Deadline-Ms`: Fastify lower-cases header names, docs should not. */
export function canonicalHeaderName(name: string): string {
  return name
    .split('-')
    .map((part) => (part === '' ? part : part[0]!.toUpperCase() + part.slice(1)))
    .join('-');
}
