// Property-based fuzzing of POST /v1/catalog/search and /catalog/search over real HTTP on loopback:
// valid requests, mutated at every depth (wrong types, nulls, huge and empty strings, deep nesting,
// lone surrogates, prototype keys, duplicate tools, odd toolSet ids, mixed list forms, odd
// maxResults), sent with odd headers and bodies (content types, encodings, truncated JSON, gzip
// bombs). Whatever is sent, the service must answer in time, never with a 5xx; a 4xx is
// problem+json with a code, naming the field when it is a validation error; a 200 has the
// response's shape. Fixed seed and bounded runs keep it a few seconds in `npm test`;
// FUZZ_SEED and FUZZ_RUNS (a multiplier) explore further locally. Feedback bodies (POST and DELETE
// /v1/catalog/feedback) go through the same values, mutations and transports, under the same rules.
import { gzipSync } from 'node:zlib';
import { FEEDBACK_OUTCOMES, FeedbackResponseSchema, SearchResponseSchema } from '@catalog-search/core';
import { Value } from '@sinclair/typebox/value';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { startOpenAITestServer, type OpenAITestServer } from '../helpers/openai-test-server.js';
import { testToken } from '../helpers/tokens.js';
import { sampleTools } from '../fixtures/tools.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const RUNS = Math.max(1, Number(process.env.FUZZ_RUNS ?? 1));
/** Generous: a search here takes milliseconds; only a hang gets near this. */
const HANG_MS = 5_000;
/** Per property: vitest's 20 s, scaled with FUZZ_RUNS. */
const PROPERTY_TIMEOUT_MS = 20_000 * RUNS;
const BODY_LIMIT = 512 * 1024;
const MAX_TOOLS = 300;

let server: RunningApp;
/** The same service with the LLM stage on, over our OpenAI-compatible test server (the real SDK). */
let withModel: RunningApp;
let model: OpenAITestServer;
/** A tool set project-a registered, so references can hit as well as miss. */
let knownToolSet: string;

beforeAll(async () => {
  const config = testConfig({
    search: { ...testConfig().search, maxTools: MAX_TOOLS, maxQueryChars: 4_000, maxContextChars: 8_000 },
    http: { ...testConfig().http, bodyLimitBytes: BODY_LIMIT },
  });
  model = await startOpenAITestServer();
  server = await startApp(config);
  withModel = await startApp({
    ...config,
    llm: {
      baseUrl: model.baseURL,
      apiKey: 'k',
      model: 'test-model',
      promptTokenBudget: 7000,
      cacheTtlMs: 60_000,
      cacheEntriesPerProject: 10,
    },
  });
  for (const to of [server, withModel]) {
    const registered = await send({
      projectId: 'project-a',
      body: JSON.stringify({ query: ['read a file'], tools: sampleTools }),
      to,
    });
    knownToolSet = (registered.json as { meta: { toolSet: string } }).meta.toolSet;
  }
});
afterAll(async () => {
  await server.close();
  await withModel.close();
  await model.close();
});

// ---------- values ----------

const LONE_SURROGATES = ['\ud800', '\udfff', 'a\udc00b', '\ud83d'];
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

const words = fc.constantFrom('read a file', 'create issue', 'send_email', 'github', 'calendar events tomorrow', 'x');
/** Short text of every odd kind: control characters, lone surrogates, prototype names, blanks. */
const oddText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({
    unit: fc.constantFrom(...LONE_SURROGATES, '\u0000', '\u2028', '😀', 'é', ' ', ':', '/', '*'),
    maxLength: 30,
  }),
  fc.constantFrom(...PROTO_KEYS, '', ' ', '\t\n'),
);
/** Long text, some of it over the limits. */
const hugeText = fc.constantFrom(
  'a'.repeat(5_000),
  'word '.repeat(2_000),
  '😀'.repeat(3_000),
  '\ud800'.repeat(2_000),
  'camelCase'.repeat(600),
  '\n'.repeat(10_000),
);
/** Text as routers forward it, and as attackers would send it. */
const text = fc.oneof(
  { weight: 8, arbitrary: words },
  { weight: 5, arbitrary: oddText },
  { weight: 1, arbitrary: hugeText },
);
const shortText = fc.oneof({ weight: 3, arbitrary: words }, { weight: 2, arbitrary: oddText });
/** Mostly `valid`, sometimes `odd`: requests must get through validation often enough to reach ranking. */
const mostly = <T, U>(valid: fc.Arbitrary<T>, odd: fc.Arbitrary<U>) =>
  fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: odd });

/** A value in place of any field: wrong types, nulls and edge numbers included. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom(0, -1, 1, 1.5, 100, 101, 2 ** 31, -(2 ** 53), Number.MAX_SAFE_INTEGER + 2),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  text,
  fc.constantFrom(raw('1e400'), raw('-0'), raw('1.0'), raw('1E2'), raw('0.00000000000000000000001')),
  fc.array(text, { maxLength: 3 }),
  fc.dictionary(fc.oneof(text, fc.constantFrom(...PROTO_KEYS)), fc.oneof(text, fc.integer()), { maxKeys: 3 }),
  fc.integer({ min: 1, max: 3_000 }).map((depth) => raw(nested(depth))),
  fc.constant([]),
  fc.constant({}),
);

/**
 * Raw JSON text in place of a value (numbers JSON.stringify cannot write, nesting deeper than it
 * can): a marker string replaced after stringifying.
 */
function raw(json: string): string {
  return `\u0001raw:${json}\u0001`;
}
const RAW = /"\\u0001raw:(.*?)\\u0001"/gs;

function nested(depth: number): string {
  const open = depth % 2 === 0 ? '{"a":' : '[';
  const close = depth % 2 === 0 ? '}' : ']';
  return open.repeat(depth) + '1' + close.repeat(depth);
}

const schemaObject = fc.oneof(
  fc.constant({ type: 'object', properties: { path: { type: 'string', description: 'file path' } } }),
  fc.dictionary(text, anyValue, { maxKeys: 4 }),
  fc.integer({ min: 1, max: 200 }).map((depth) => raw(nested(depth * 2))),
  fc.constant(raw('{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},"type":"object"}')),
);

const toolInfo = fc.record(
  {
    toolKey: fc.oneof(fc.constantFrom('fs:read_file', 'gh:create_issue', 'fs:read_file'), text),
    toolName: fc.oneof(fc.constantFrom('read_file', 'create_issue'), text),
    serverName: text,
    description: fc.oneof(text, fc.constantFrom('x'.repeat(100_000), 'Read a file from disk.')),
    title: text,
    inputSchema: schemaObject,
    annotations: fc.oneof(schemaObject, fc.constant({ readOnlyHint: true }), fc.constant({ destructiveHint: false })),
    tags: fc.array(text, { maxLength: 4 }),
    name: text,
  },
  { requiredKeys: ['toolKey', 'toolName', 'serverName'] },
);

const mcpTool = fc.record(
  { name: text, description: text, inputSchema: schemaObject, annotations: schemaObject, title: text, _meta: anyValue },
  { requiredKeys: ['name', 'inputSchema'] },
);

const server_ = fc.record(
  { serverId: text, serverName: text, tools: fc.array(mcpTool, { maxLength: 6 }) },
  { requiredKeys: ['serverId', 'tools'] },
);

const filterRule = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'read_*',
      '*issue*',
      '!*delete*',
      '/^gh:/',
      '/file/i',
      '{a,b}*',
      '[abc]*',
      '/(a+)+$/',
      'github:*',
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom('/\\1/', '/[/', '!', '', 'a{b', '*}', '[a', '/(?i)x/m', '/[a-z]{1,999}b/') },
  { weight: 1, arbitrary: text },
);
const shortList = fc.array(mostly(shortText, text), { maxLength: 3 });

const envelope = fc.record(
  {
    query: fc.array(mostly(shortText, text), { minLength: 1, maxLength: 4 }),
    context: text,
    maxResults: mostly(fc.integer({ min: 1, max: 100 }), fc.constantFrom(0, -1, 101, 1.5, 1e9)),
    minRelevance: mostly(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(-0.1, 1.1)),
  },
  { requiredKeys: ['query'] },
);

/** A filter keeps few of a small list: sent now and then, so that most searches have tools to rank. */
const filterAndBoost = fc.oneof(
  { weight: 3, arbitrary: fc.constant({}) },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        filter: fc.record(
          {
            servers: shortList,
            excludeServers: shortList,
            tools: fc.array(filterRule, { maxLength: 4 }),
            tags: shortList,
            readOnly: fc.boolean(),
            excludeDestructive: fc.boolean(),
          },
          { requiredKeys: [] },
        ),
        boost: fc.record({ tags: shortList }, { requiredKeys: [] }),
      },
      { requiredKeys: [] },
    ),
  },
);

type ListForm = 'tools' | 'servers' | 'toolSet' | 'tools+servers' | 'tools+toolSet' | 'none';

const toolSetId = fc.oneof(
  { weight: 3, arbitrary: fc.constant('known') },
  {
    weight: 1,
    arbitrary: fc.constantFrom('A'.repeat(43), 'A'.repeat(42), 'A'.repeat(44), '../../etc/passwd', '', '__proto__'),
  },
  { weight: 1, arbitrary: text },
);

/** A valid-looking request in one of the list forms (or a mix the service must refuse). */
const request = fc
  .record({
    envelope,
    narrowing: filterAndBoost,
    form: mostly(
      fc.constantFrom<ListForm>('tools', 'tools', 'servers', 'toolSet'),
      fc.constantFrom<ListForm>('tools+servers', 'tools+toolSet', 'none'),
    ),
    tools: fc.array(toolInfo, { maxLength: 8 }),
    sample: fc.nat({ max: sampleTools.length }),
    servers: fc.array(server_, { maxLength: 3 }),
    toolSet: toolSetId,
  })
  .map(({ envelope, narrowing, form, tools, sample, servers, toolSet }) => {
    const body: Record<string, unknown> = { ...envelope, ...narrowing };
    // Duplicate tools on purpose: the sample list's first tools again, after the generated ones.
    const list = [...sampleTools.slice(0, sample), ...tools, ...sampleTools.slice(0, Math.min(2, sample))];
    if (form.includes('tools')) body.tools = list;
    if (form.includes('servers')) body.servers = servers;
    if (form.includes('toolSet')) body.toolSet = toolSet === 'known' ? '\u0002known' : toolSet;
    return body;
  });

// ---------- mutations ----------

type Mutation =
  | { kind: 'replace'; at: number; value: unknown }
  | { kind: 'delete'; at: number }
  | { kind: 'addKey'; at: number; key: string; value: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: anyValue }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('addKey' as const),
    at: fc.nat(),
    key: fc.oneof(fc.constantFrom(...PROTO_KEYS, 'tools', 'query', 'servers', 'toolSet'), text),
    value: anyValue,
  }),
);

type Container = Record<string, unknown> | unknown[];

/** Every container in `value` with its own path, the value itself first (depth-bounded). */
function containers(value: unknown, depth = 0, out: Container[] = []): Container[] {
  if (value === null || typeof value !== 'object' || depth > 6) return out;
  out.push(value as Container);
  for (const child of Object.values(value)) containers(child, depth + 1, out);
  return out;
}

function mutate(body: Record<string, unknown>, mutations: Mutation[]): Record<string, unknown> {
  const copy = structuredClone(body);
  // Values are cloned too: fc.constant gives the same object every time, and one inserted into itself is a cycle.
  for (const m of mutations.map((m) => structuredClone(m))) {
    const all = containers(copy);
    const target = all[m.at % all.length]!;
    const keys = Array.isArray(target) ? target.map((_, i) => i) : Object.keys(target);
    if (m.kind === 'addKey') {
      if (Array.isArray(target)) target.push(m.value);
      else
        Object.defineProperty(target, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
      continue;
    }
    if (keys.length === 0) continue;
    const key = keys[m.at % keys.length]!;
    if (m.kind === 'delete') {
      if (Array.isArray(target)) target.splice(key as number, 1);
      else delete target[key as string];
    } else {
      (target as Record<string | number, unknown>)[key] = m.value;
    }
  }
  return copy;
}

function serialise(body: unknown): string {
  return JSON.stringify(body)
    .replace(RAW, (_match, json: string) => JSON.parse(`"${json}"`) as string)
    .replaceAll('"\\u0002known"', JSON.stringify(knownToolSet));
}

// ---------- transport ----------

type Transport =
  | { kind: 'plain' }
  | { kind: 'contentType'; value: string }
  | { kind: 'gzip' }
  | { kind: 'encoding'; value: string; compress: boolean }
  | { kind: 'truncate'; at: number }
  | { kind: 'garbage'; at: number; bytes: number[] }
  | { kind: 'gzipPadded'; bytes: number };

const transport: fc.Arbitrary<Transport> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'plain' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('contentType' as const),
      value: fc.constantFrom(
        'application/json; charset=utf-8',
        'application/json; charset=utf-16',
        'application/json; charset=latin1',
        'APPLICATION/JSON',
        'application/problem+json',
        'application/json, text/plain',
        'application/json;;;',
        'text/json',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        '',
        'application/json; charset="utf-8"; charset=ascii',
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'gzip' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('encoding' as const),
      value: fc.constantFrom(
        'GZIP',
        'gzip, gzip',
        'x-gzip',
        'deflate',
        'br',
        'identity',
        'gzip;q=1',
        'zstd',
        ' gzip ',
        'identity, gzip',
        '',
      ),
      compress: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('garbage' as const),
      at: fc.nat(),
      bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 4 }),
    }),
  },
  // Inflated to just under or far over the body limit (a bomb: tiny on the wire).
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('gzipPadded' as const),
      bytes: fc.constantFrom(BODY_LIMIT - 64 * 1024, BODY_LIMIT + 1, 50 * 1024 * 1024),
    }),
  },
);

interface Wire {
  body: Uint8Array;
  headers: Record<string, string>;
  /** Whether the service can read the body as the JSON that was generated. */
  intact: boolean;
}

function encode(json: string, how: Transport): Wire {
  const bytes = Buffer.from(json);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  switch (how.kind) {
    case 'plain':
      return { body: bytes, headers, intact: true };
    case 'contentType':
      return { body: bytes, headers: { 'content-type': how.value }, intact: false };
    case 'gzip':
      return { body: gzipSync(bytes), headers: { ...headers, 'content-encoding': 'gzip' }, intact: true };
    case 'encoding':
      return {
        body: how.compress ? gzipSync(bytes) : bytes,
        headers: { ...headers, 'content-encoding': how.value },
        intact: false,
      };
    case 'truncate':
      return { body: bytes.subarray(0, how.at % Math.max(1, bytes.length)), headers, intact: false };
    case 'garbage': {
      const at = how.at % (bytes.length + 1);
      return {
        body: Buffer.concat([bytes.subarray(0, at), Buffer.from(how.bytes), bytes.subarray(at)]),
        headers,
        intact: false,
      };
    }
    case 'gzipPadded': {
      const padded = Buffer.concat([
        bytes.subarray(0, bytes.length - 1),
        Buffer.alloc(Math.max(0, how.bytes - bytes.length), ' '),
        bytes.subarray(bytes.length - 1),
      ]);
      return {
        body: gzipSync(padded),
        headers: { ...headers, 'content-encoding': 'gzip' },
        intact: padded.length <= BODY_LIMIT,
      };
    }
  }
}

// ---------- sending and checking ----------

const PROJECTS = ['project-a', 'project-b', '__proto__', 'constructor', '', 'p\ud800', 'x'.repeat(600)];

async function send({
  projectId,
  body,
  headers = { 'content-type': 'application/json' },
  path = '/v1/catalog/search',
  to = server,
  method = 'POST',
}: {
  projectId: string;
  body: Uint8Array | string;
  headers?: Record<string, string>;
  path?: string;
  to?: RunningApp;
  method?: 'POST' | 'DELETE';
}) {
  const token = testToken({ projectId });
  let response: Response;
  try {
    response = await fetch(`${to.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...headers },
      body: body as BodyInit,
      signal: AbortSignal.timeout(HANG_MS),
    });
  } catch (error) {
    throw new Error(`no answer within ${HANG_MS} ms (hang, crash or reset): ${(error as Error).message}`, {
      cause: error,
    });
  }
  const textBody = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(textBody);
  } catch {
    json = undefined;
  }
  return { status: response.status, type: response.headers.get('content-type') ?? '', text: textBody, json };
}

/** Problem codes that come from reading a structurally valid JSON body: they must name a field. */
const FIELD_CODES = new Set(['INVALID_REQUEST', 'TOO_MANY_TOOLS', 'TOOL_SET_UNKNOWN']);

function check(answer: Awaited<ReturnType<typeof send>>, sent: { intact: boolean; maxResults: unknown }): void {
  const where = `${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, where).toBeLessThan(500);
  if (answer.status >= 400) {
    expect(answer.type, where).toMatch(/^application\/problem\+json/);
    const problem = answer.json as {
      status: number;
      code: string;
      detail: string;
      errors?: { field: string; message: string }[];
    };
    expect(problem.status, where).toBe(answer.status);
    expect(typeof problem.code, where).toBe('string');
    expect(problem.code.length, where).toBeGreaterThan(0);
    if (sent.intact && FIELD_CODES.has(problem.code)) {
      // A validation error names the field: in `errors` (a JSON Pointer) and in the detail.
      expect(problem.errors?.length, where).toBeGreaterThan(0);
      const first = problem.errors![0]!;
      expect(first.field, where).toMatch(/^\/|^X-/);
      expect(problem.detail, where).toContain(first.field);
    }
    return;
  }
  expect(answer.status, where).toBe(200);
  expect(answer.type, where).toMatch(/^application\/json/);
  const errors = [...Value.Errors(SearchResponseSchema, answer.json)].slice(0, 3);
  expect(
    errors.map((error) => `${error.path}: ${error.message}`),
    where,
  ).toEqual([]);
  const { results, meta } = answer.json as {
    results: { toolKey: string; relevance: number }[];
    meta: { degraded?: string };
  };
  // The rerank stage threw: a bug, whatever the input.
  expect(meta.degraded, where).not.toBe('internal_error');
  const maxResults = typeof sent.maxResults === 'number' ? sent.maxResults : 20;
  expect(results.length, where).toBeLessThanOrEqual(maxResults);
  for (const result of results) {
    expect(result.relevance, where).toBeGreaterThanOrEqual(0);
    expect(result.relevance, where).toBeLessThanOrEqual(1);
  }
  expect(new Set(results.map((result) => result.toolKey)).size, where).toBe(results.length);
}

/** A feedback answer: a 4xx as `check` wants it, a 202 with the response's shape (and every sent event counted once), or a 204. */
function checkFeedback(answer: Awaited<ReturnType<typeof send>>, events: unknown): void {
  const where = `${answer.status} ${answer.text.slice(0, 300)}`;
  if (answer.status >= 400 || answer.status === 200)
    return check(answer, { intact: events !== undefined, maxResults: undefined });
  if (answer.status === 204) return;
  expect(answer.status, where).toBe(202);
  expect(
    [...Value.Errors(FeedbackResponseSchema, answer.json)].map((error) => error.path),
    where,
  ).toEqual([]);
  const { accepted, ignored } = answer.json as { accepted: number; ignored: { index: number }[] };
  // Unless the body was sent altered (a transport the service may still read), every event is counted once.
  if (events !== undefined) expect(accepted + ignored.length, where).toBe(Array.isArray(events) ? events.length : NaN);
}

const feedbackEvent = fc.record(
  {
    toolKey: fc.oneof(fc.constantFrom('fs:read_file', 'gh:create_issue'), text),
    outcome: mostly(fc.constantFrom(...FEEDBACK_OUTCOMES), text),
    requestId: mostly(fc.uuid(), text),
    query: fc.oneof(mostly(shortText, text), fc.array(mostly(shortText, text), { minLength: 1, maxLength: 4 })),
    context: text,
  },
  { requiredKeys: ['toolKey', 'outcome'] },
);
const feedbackBody = fc.record({ events: fc.array(feedbackEvent, { minLength: 1, maxLength: 8 }) });
const FEEDBACK_PATHS = ['/v1/catalog/feedback', '/catalog/feedback'];

/**
 * Runs a property with the fixed seed; a failure names the seed, the path to replay it and the
 * error, with the counterexample cut short (some are megabytes).
 */
async function holds<T>(property: fc.IAsyncProperty<T>, numRuns: number): Promise<void> {
  const details = await fc.check(property, { seed: SEED, numRuns: numRuns * RUNS, endOnFailure: true });
  if (!details.failed) return;
  const example = JSON.stringify(details.counterexample, (_key, value: unknown) =>
    typeof value === 'string' && value.length > 200 ? `${value.slice(0, 200)}…(${value.length} chars)` : value,
  );
  throw new Error(
    `property failed (replay: FUZZ_SEED=${details.seed}, path ${details.counterexamplePath}, after ${details.numRuns} runs): ` +
      `${String(details.errorInstance)}\ncounterexample: ${example?.slice(0, 4_000)}`,
  );
}

describe('fuzzed search requests', () => {
  it(
    'a mutated body never gets a 5xx or a hang; 4xx name the field; 200s have the response shape',
    async () => {
      await holds(
        fc.asyncProperty(
          request,
          fc.array(mutation, { maxLength: 2 }),
          mostly(fc.constant('project-a'), fc.constantFrom(...PROJECTS)),
          fc.constantFrom('/v1/catalog/search', '/catalog/search'),
          async (body, mutations, projectId, path) => {
            const mutated = mutate(body, mutations);
            const answer = await send({ projectId, body: serialise(mutated), path });
            check(answer, { intact: true, maxResults: mutated.maxResults });
          },
        ),
        250,
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'odd content types, encodings, truncated or corrupted bodies and gzip bombs never get a 5xx or a hang',
    async () => {
      await holds(
        fc.asyncProperty(request, transport, async (body, how) => {
          const wire = encode(serialise(body), how);
          const answer = await send({ projectId: 'project-a', body: wire.body, headers: wire.headers });
          check(answer, { intact: wire.intact, maxResults: body.maxResults });
        }),
        80,
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'with the LLM stage on, a mutated body never gets a 5xx, a hang or a failed rerank stage',
    async () => {
      await holds(
        fc.asyncProperty(request, fc.array(mutation, { maxLength: 1 }), async (body, mutations) => {
          const mutated = mutate(body, mutations);
          const answer = await send({ projectId: 'project-a', body: serialise(mutated), to: withModel });
          check(answer, { intact: true, maxResults: mutated.maxResults });
        }),
        60,
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'a mutated feedback report never gets a 5xx or a hang; 4xx name the field; 202s count every event once',
    async () => {
      await holds(
        fc.asyncProperty(
          feedbackBody,
          fc.array(mutation, { maxLength: 2 }),
          mostly(fc.constant('project-a'), fc.constantFrom(...PROJECTS)),
          fc.constantFrom(...FEEDBACK_PATHS),
          async (body, mutations, projectId, path) => {
            const mutated = mutate(body, mutations);
            const answer = await send({ projectId, body: serialise(mutated), path });
            checkFeedback(answer, mutated.events);
          },
        ),
        200,
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'feedback with odd content types, encodings, truncated or corrupted bodies and gzip bombs, and DELETE with any body, never gets a 5xx or a hang',
    async () => {
      await holds(
        fc.asyncProperty(
          feedbackBody,
          transport,
          fc.constantFrom<'POST' | 'DELETE'>('POST', 'POST', 'DELETE'),
          fc.constantFrom(...FEEDBACK_PATHS),
          async (body, how, method, path) => {
            const wire = encode(serialise(body), how);
            const answer = await send({ projectId: 'project-b', body: wire.body, headers: wire.headers, method, path });
            // DELETE reads no body: one it cannot parse gets a 400 that names no field.
            checkFeedback(answer, wire.intact && method === 'POST' ? body.events : undefined);
          },
        ),
        80,
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it('keeps serving a plain search afterwards', async () => {
    const answer = await send({
      projectId: 'project-a',
      body: JSON.stringify({ query: ['read a file'], tools: sampleTools }),
    });
    expect(answer.status).toBe(200);
  });
});
