// OpenTelemetry tracing (src/tracing): spans sent as OTLP/HTTP JSON to a real loopback receiver.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { startTracing } from '../../src/tracing/index.js';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { startOpenAITestServer, type OpenAITestServer } from '../helpers/openai-test-server.js';
import { everydayTools } from '../fixtures/tools.js';
import { searchAs } from '../helpers/search.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
/** The caller's W3C trace context, sent with the searches. */
const callerTrace = { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`, tracestate: 'vendor=abc' };
/** A project id that must never reach a span or a log sent out. */
const PROJECT = 'project-secret-42';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
}
interface OtlpRequest {
  resourceSpans: {
    resource: { attributes: { key: string; value: Record<string, unknown> }[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
}

/** A loopback OTLP/HTTP receiver: keeps every POST /v1/traces body (JSON). */
async function startReceiver(): Promise<{ url: string; bodies: OtlpRequest[]; close: () => Promise<void> }> {
  const bodies: OtlpRequest[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/v1/traces')
        bodies.push(JSON.parse(Buffer.concat(chunks).toString()) as OtlpRequest);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const spansOf = (bodies: OtlpRequest[]) =>
  bodies.flatMap((body) =>
    body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)),
  );
const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((entry) => entry.key === key)?.value;
  return value === undefined ? undefined : Object.values(value)[0];
};

describe('configuration', () => {
  it('is off without an OTLP endpoint, and takes the standard OTEL_* variables', () => {
    expect(parseConfig({}).tracing).toBeUndefined();
    expect(parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing).toEqual({
      endpoint: 'http://collector:4318/v1/traces',
      serviceName: 'catalog-search',
    });
    expect(
      parseConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/traces',
        OTEL_SERVICE_NAME: 'search-eu',
      }).tracing,
    ).toEqual({ endpoint: 'https://b/traces', serviceName: 'search-eu' });
    expect(
      parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_SDK_DISABLED: 'true' }).tracing,
    ).toBeUndefined();
    expect(() => parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT: must be an http\(s\) URL/,
    );
  });
});

describe('tracing on', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let model: OpenAITestServer;
  let service: RunningApp;
  let spans: OtlpSpan[];

  beforeAll(async () => {
    receiver = await startReceiver();
    model = await startOpenAITestServer();
    const tracing = await startTracing({ endpoint: `${receiver.url}/v1/traces`, serviceName: 'catalog-search-test' });
    service = await startApp(
      testConfig({
        llm: {
          baseUrl: model.baseURL,
          apiKey: 'k',
          model: 'test-model',
          promptTokenBudget: 7000,
          cacheTtlMs: 0,
          cacheEntriesPerProject: 10,
        },
      }),
      { tracing },
    );
    const response = await searchAs(
      service,
      { query: ['send an email'], tools: everydayTools },
      { projectId: PROJECT, headers: callerTrace },
    );
    expect(response.status).toBe(200);
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${service.url}/metrics`)).status).toBe(200);
    await service.close();
    // Shutdown exports what is still batched, as server.ts does on SIGTERM.
    await tracing.shutdown(5000);
    spans = spansOf(receiver.bodies);
  });
  afterAll(async () => {
    await model.close();
    await receiver.close();
  });

  it('sends a server span continuing the caller trace, with the stages as its children', () => {
    const server = spans.find((span) => span.name === 'POST /v1/catalog/search')!;
    expect(server).toMatchObject({ traceId: TRACE_ID, parentSpanId: CALLER_SPAN, kind: 2 });
    expect(attribute(server, 'http.response.status_code')).toBe(200);
    const stages = spans.filter((span) => span.parentSpanId === server.spanId).map((span) => span.name);
    expect(stages).toEqual(['search.lexical', 'search.rerank']);
    const rerank = spans.find((span) => span.name === 'search.rerank')!;
    expect(attribute(rerank, 'catalog_search.ranker')).toBe('llm');
    expect(
      attribute(
        spans.find((span) => span.name === 'search.lexical')!,
        'catalog_search.tools',
      ),
    ).toBe(everydayTools.length);
    expect(receiver.bodies[0]!.resourceSpans[0]!.resource.attributes).toContainEqual({
      key: 'service.name',
      value: { stringValue: 'catalog-search-test' },
    });
  });

  it('makes the rerank span the parent of the model call and logs the ids of the server span', () => {
    const rerank = spans.find((span) => span.name === 'search.rerank')!;
    const server = spans.find((span) => span.name === 'POST /v1/catalog/search')!;
    expect(model.requests.at(-1)!.headers.traceparent).toBe(`00-${TRACE_ID}-${rerank.spanId}-01`);
    expect(model.requests.at(-1)!.headers.tracestate).toBe('vendor=abc');
    expect(service.logs.lines.find((line) => line.audit === 'search')).toMatchObject({
      traceId: TRACE_ID,
      spanId: server.spanId,
    });
  });

  it('traces no probe or metrics scrape', () => {
    expect(spans.map((span) => span.name).sort()).toEqual([
      'POST /v1/catalog/search',
      'search.lexical',
      'search.rerank',
    ]);
  });

  it('puts no project id, query or tool text on a span', () => {
    const sent = JSON.stringify(receiver.bodies);
    expect(sent).not.toContain(PROJECT);
    expect(sent).not.toContain('send an email');
    expect(sent).not.toContain(everydayTools[0]!.description);
  });
});

describe('tracing on, with the semantic stage', () => {
  it("makes the semantic span the parent of the query's and the list's embeddings calls", async () => {
    const receiver = await startReceiver();
    const embeddings = await startOpenAITestServer();
    const tracing = await startTracing({ endpoint: `${receiver.url}/v1/traces`, serviceName: 'catalog-search-test' });
    const service = await startApp(
      testConfig({
        embeddings: {
          endpoint: { baseUrl: embeddings.baseURL, apiKey: undefined, model: 'test-embed' },
          threads: 1,
          backgroundNice: 10,
          cacheBytes: 1024 * 1024,
          waitShare: 0.5,
          maxQueuedPerProject: 1000,
        },
      }),
      { tracing },
    );
    try {
      const response = await searchAs(
        service,
        { query: ['what is on my plate tomorrow'], tools: everydayTools },
        { projectId: PROJECT, headers: callerTrace },
      );
      expect(response.status).toBe(200);
      await service.close();
      await tracing.shutdown(5000);
      const spans = spansOf(receiver.bodies);
      const server = spans.find((span) => span.name === 'POST /v1/catalog/search')!;
      const semantic = spans.find((span) => span.name === 'search.semantic')!;
      expect(semantic).toMatchObject({ traceId: TRACE_ID, parentSpanId: server.spanId });
      expect(attribute(semantic, 'catalog_search.semantic')).toBeTypeOf('string');
      // The query's call and the list's background batch.
      expect(embeddings.embeddingHeaders.length).toBeGreaterThanOrEqual(2);
      for (const headers of embeddings.embeddingHeaders) {
        expect(headers.traceparent).toBe(`00-${TRACE_ID}-${semantic.spanId}-01`);
        expect(headers.tracestate).toBe('vendor=abc');
      }
    } finally {
      await embeddings.close();
      await receiver.close();
    }
  });
});

describe('a collector that never answers', () => {
  it('costs no search, and the shutdown gives up on the last spans at its limit', async () => {
    // Accepts the connection and reads the spans, never responds.
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const tracing = await startTracing({
      endpoint: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1/traces`,
      serviceName: 'catalog-search-test',
    });
    const service = await startApp(testConfig(), { tracing });
    try {
      for (let index = 0; index < 3; index += 1) {
        const response = await searchAs(
          service,
          { query: ['send an email'], tools: everydayTools },
          { projectId: PROJECT },
        );
        expect(response.status).toBe(200);
      }
      await service.close();
      const started = Date.now();
      await expect(tracing.shutdown(300)).rejects.toThrow(/not exported within 300 ms/);
      // Generous: only a hang (the exporter's own 10 s timeout) would pass it.
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

/**
 * The entry point (src/server.ts under tsx) as a child process, with a resolve hook that records
 * every `@opentelemetry/*` import: one search with a traceparent, then SIGTERM.
 */
async function searchThenStop(
  env: Record<string, string>,
): Promise<{ otelImports: string[]; exitCode: number | null }> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const recordDir = mkdtempSync(join(tmpdir(), 'otel-imports-'));
  const record = join(recordDir, 'imports.txt');
  const child = spawn(
    process.execPath,
    ['--import', './test/helpers/record-otel-imports.mjs', '--import', 'tsx', 'src/server.ts'],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'development',
        HOST: '127.0.0.1',
        PORT: '0',
        EMBEDDINGS: 'off',
        RECORD_OTEL_IMPORTS: record,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  try {
    const until = Date.now() + 30_000;
    while (!/^curl /m.test(stdout)) {
      if (Date.now() > until || child.exitCode !== null) throw new Error(`the server did not start: ${stdout}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const token = /^TOKEN=(\S+)$/m.exec(stdout)![1]!;
    const url = /^curl -s (\S+) /m.exec(stdout)![1]!;
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`,
      },
      body: JSON.stringify({ query: ['send an email'], tools: everydayTools }),
    });
    expect(response.status).toBe(200);
    child.kill('SIGTERM');
    const exitCode = await exited;
    return {
      otelImports: existsSync(record) ? readFileSync(record, 'utf8').split('\n').filter(Boolean) : [],
      exitCode,
    };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(recordDir, { recursive: true, force: true });
  }
}

describe('npm start (src/server.ts)', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());

  it('with an OTLP endpoint: exports the request span on graceful shutdown', async () => {
    const { otelImports, exitCode } = await searchThenStop({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    expect(exitCode).toBe(0);
    expect(otelImports).toContain('@opentelemetry/sdk-trace-base');
    const server = spansOf(receiver.bodies).find((span) => span.name === 'POST /v1/catalog/search');
    expect(server).toMatchObject({ traceId: TRACE_ID, parentSpanId: CALLER_SPAN });
  }, 60_000);

  it('with a collector that never answers: still exits 0 within SHUTDOWN_TIMEOUT_MS', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      // Past the limit close-with-grace exits 1; the exporter alone would wait 10 s for an answer.
      const { exitCode } = await searchThenStop({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, SHUTDOWN_TIMEOUT_MS: '2000' });
      expect(exitCode).toBe(0);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 60_000);

  it('without one: loads no OpenTelemetry module and sends nothing', async () => {
    receiver.bodies.length = 0;
    const { otelImports, exitCode } = await searchThenStop({});
    expect(exitCode).toBe(0);
    expect(otelImports).toEqual([]);
    expect(receiver.bodies).toEqual([]);
  }, 60_000);
});
