import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

/**
 * Checks real responses against openapi.yaml, the file clients are generated from: the status must
 * be documented for the operation, the Content-Type must be a documented media type, the body must
 * validate against that media type's schema (JSON Schema 2020-12, as OpenAPI 3.1 says), and every
 * header the spec marks `required` must be present and valid.
 */

type Json = Record<string, unknown>;
interface HeaderObject {
  required?: boolean;
  schema?: Json;
  $ref?: string;
}

// ajv-formats is CommonJS with a default export; under NodeNext its type is the module namespace.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export const specDocument = parse(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8')) as Json & {
  paths: Record<string, Record<string, { responses: Record<string, Json> }>>;
  components: { headers: Record<string, HeaderObject> };
};

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(specDocument, 'openapi.yaml', undefined, false);

const pointerSegment = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');
const compiled = new Map<string, ValidateFunction>();

function validatorAt(pointer: string): ValidateFunction {
  let validate = compiled.get(pointer);
  if (validate === undefined) {
    validate = ajv.compile({ $ref: `openapi.yaml#${pointer}` });
    compiled.set(pointer, validate);
  }
  return validate;
}

/** Whether `value` matches the spec's component schema `name` (for requests: both forms of SearchRequest). */
export function matchesComponent(name: string, value: unknown): boolean {
  return validatorAt(`/components/schemas/${pointerSegment(name)}`)(value) === true;
}

export interface CheckedResponse {
  path: string;
  method: 'get' | 'post' | 'delete';
  response: Response;
  body: unknown;
}

/** The list of contract violations of one real response (empty when it matches the spec). */
export function contractViolations({ path, method, response, body }: CheckedResponse): string[] {
  const operation = specDocument.paths[path]?.[method];
  if (operation === undefined) return [`${method.toUpperCase()} ${path} is not in openapi.yaml`];
  const status = String(response.status);
  const documented = operation.responses[status] as
    { content?: Record<string, unknown>; headers?: Record<string, HeaderObject> } | undefined;
  if (documented === undefined) return [`status ${status} is not documented for ${method.toUpperCase()} ${path}`];

  const violations: string[] = [];
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
  if (documented.content === undefined) {
    // A response documented without content (204) must have none.
    if (body !== undefined && body !== null && body !== '') violations.push(`${status} is documented without a body`);
  } else if (documented.content[mediaType] === undefined) {
    violations.push(`Content-Type ${mediaType || '(none)'} is not documented for ${status}`);
  } else {
    const pointer = ['', 'paths', path, method, 'responses', status, 'content', mediaType, 'schema']
      .map((segment, index) => (index === 0 ? segment : pointerSegment(segment)))
      .join('/');
    const validate = validatorAt(pointer);
    if (!validate(body)) {
      violations.push(...(validate.errors ?? []).map((error) => `body${error.instancePath} ${error.message}`));
    }
  }

  for (const [name, reference] of Object.entries(documented.headers ?? {})) {
    const header =
      reference.$ref === undefined ? reference : specDocument.components.headers[reference.$ref.split('/').pop()!]!;
    const value = response.headers.get(name);
    if (value === null) {
      if (header.required === true) violations.push(`required header ${name} is missing`);
      continue;
    }
    const parsed = header.schema?.type === 'integer' ? Number(value) : value;
    const validate = ajv.compile(header.schema ?? {});
    if (!validate(parsed))
      violations.push(`header ${name}: "${value}" ${validate.errors?.[0]?.message ?? 'is invalid'}`);
  }
  return violations;
}
