// An OpenAI-compatible chat-completions and embeddings server for tests: a real node:http server on
// loopback that speaks the wire protocol the `openai` SDK expects (JSON responses and SSE streams), so
// tests run the real SDK over real HTTP. Each test scripts how it behaves: answer well, slowly, with
// 429/500, malformed JSON, unknown ids, hang, cut the stream, reject `json_schema`, stream whitespace
// forever or send an answer of many megabytes; embeddings answer vectors, hang, fail, or answer
// vectors of the wrong length, with NaN, or too few.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatMessage {
  role: string;
  content: string;
}

/** The request body as the double received it (the fields a test inspects). */
export interface ChatRequestBody {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  response_format?: { type: string; json_schema?: { name: string; schema: unknown; strict?: boolean } };
  [field: string]: unknown;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: ChatRequestBody;
  receivedAt: number;
  /** When the connection closed, and whether our response had been sent in full by then. */
  closedAt?: number;
  completed?: boolean;
}

/** One candidate line of the prompt: `t7 | …`. */
export interface PromptCandidate {
  id: string;
  line: string;
}

export interface Grade {
  id: string;
  grade: number | string;
  why?: string;
}

export type Behaviour =
  /** Grade the candidates with a rule (default: every candidate whose line contains a query word gets 3). */
  | { kind: 'grade'; rule?: (request: ChatRequestBody, candidates: PromptCandidate[]) => Grade[] }
  /** Answer with this exact assistant text (malformed JSON, prose, unknown ids...). */
  | { kind: 'content'; content: string }
  /** An HTTP error with an OpenAI-style error body. */
  | { kind: 'error'; status: number; message?: string; headers?: Record<string, string> }
  /** Accept the request and never answer (nor close). */
  | { kind: 'hang' }
  /** Stream part of the answer, then keep the connection open and silent (a model stalled mid-answer). */
  | { kind: 'stall'; inner: Behaviour; afterChars: number }
  /** Stream part of the answer, then destroy the connection. */
  | { kind: 'cut'; inner: Behaviour; afterChars: number }
  /**
   * Stream `prefix`, then `unit` (default `"\n"`) again and again until the client goes away: a model
   * stuck in the JSON-mode whitespace loop. Streaming only (a plain completion would never end).
   */
  | { kind: 'endless'; prefix?: string; unit?: string };

export interface Script {
  behaviour: Behaviour;
  /** Wait this long before the response starts. */
  delayMs?: number;
  /** Characters of content per SSE chunk (default 24) and the pause between chunks (default 0). */
  chunkChars?: number;
  chunkDelayMs?: number;
  /** Answer `response_format: json_schema` with a 400, as endpoints that lack it do. */
  rejectJsonSchema?: boolean;
  /** Answer a request carrying `stream_options` with a 400, as some older endpoints do. */
  rejectStreamOptions?: boolean;
}

/** How `/v1/embeddings` answers. */
export type EmbeddingsBehaviour =
  /** One vector per input from `vector` (default: hashed bag of words, 64 dimensions). */
  | { kind: 'vectors'; vector?: (text: string) => number[] }
  | { kind: 'error'; status: number; message?: string }
  | { kind: 'hang' }
  /** The second and later vectors one dimension short. */
  | { kind: 'wrong-dimensions' }
  /** A vector entry that is not a number (JSON has no NaN: the string "NaN"). */
  | { kind: 'nan' }
  /** One vector fewer than inputs. */
  | { kind: 'fewer' };

export interface EmbeddingsRequestBody {
  model: string;
  input: string[];
  encoding_format?: string;
}

export const EMBEDDING_TEST_DIMENSIONS = 64;

/** A deterministic vector: each word (lower-cased, 3+ letters) adds 1 to a dimension chosen by its hash. */
export function bagOfWordsVector(text: string): number[] {
  const vector = new Array<number>(EMBEDDING_TEST_DIMENSIONS).fill(0);
  vector[0] = 0.01;
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word.length < 3) continue;
    let h = 0;
    for (const char of word) h = (h * 31 + char.charCodeAt(0)) >>> 0;
    vector[1 + (h % (EMBEDDING_TEST_DIMENSIONS - 1))]! += 1;
  }
  return vector;
}

export interface OpenAITestServer {
  /** Base URL for the SDK, ending in /v1. */
  readonly baseURL: string;
  /** Every chat-completions request received, in order. */
  readonly requests: RecordedRequest[];
  /** The behaviour for every request from now on (until changed). */
  setScript(script: Script): void;
  /** Behaviours for the next requests, used once each before falling back to the standing script. */
  enqueue(...scripts: Script[]): void;
  /** Every embeddings request received, in order. */
  readonly embeddingRequests: EmbeddingsRequestBody[];
  /** The headers of every embeddings request, in the same order. */
  readonly embeddingHeaders: IncomingMessage['headers'][];
  /** How `/v1/embeddings` answers from now on (default: vectors), after `delayMs`. */
  setEmbeddings(behaviour: EmbeddingsBehaviour, delayMs?: number): void;
  close(): Promise<void>;
}

/** Pulls the candidate lines (`t<number> | ...`) out of the last user message. */
export function promptCandidates(request: ChatRequestBody): PromptCandidate[] {
  const user = [...request.messages].reverse().find((message) => message.role === 'user');
  const candidates: PromptCandidate[] = [];
  for (const line of (user?.content ?? '').split('\n')) {
    const match = /^(t\d+) \|/.exec(line);
    if (match) candidates.push({ id: match[1]!, line });
  }
  return candidates;
}

/** The queries of the prompt, lower-cased words, for the default grading rule. */
function queryWords(request: ChatRequestBody): string[] {
  const user = [...request.messages].reverse().find((message) => message.role === 'user')?.content ?? '';
  const section = /QUERIES:\n([\s\S]*?)\n\n/.exec(user)?.[1] ?? '';
  return section
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 3);
}

export const gradeByQueryWords = (request: ChatRequestBody, candidates: PromptCandidate[]): Grade[] => {
  const words = queryWords(request);
  return candidates
    .filter((candidate) => words.some((word) => candidate.line.toLowerCase().includes(word)))
    .map((candidate) => ({ id: candidate.id, grade: 3, why: 'matches the request' }));
};

function contentFor(behaviour: Behaviour, request: ChatRequestBody): string {
  switch (behaviour.kind) {
    case 'grade': {
      const rule = behaviour.rule ?? gradeByQueryWords;
      return JSON.stringify({ results: rule(request, promptCandidates(request)) });
    }
    case 'content':
      return behaviour.content;
    case 'stall':
    case 'cut':
      return contentFor(behaviour.inner, request);
    case 'endless':
      return behaviour.prefix ?? '';
    default:
      return '';
  }
}

function approxTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startOpenAITestServer(
  initial: Script = { behaviour: { kind: 'grade' } },
): Promise<OpenAITestServer> {
  let standing = initial;
  const queue: Script[] = [];
  const requests: RecordedRequest[] = [];
  const embeddingRequests: EmbeddingsRequestBody[] = [];
  const embeddingHeaders: IncomingMessage['headers'][] = [];
  let embeddings: { behaviour: EmbeddingsBehaviour; delayMs: number } = { behaviour: { kind: 'vectors' }, delayMs: 0 };
  let counter = 0;

  async function handleEmbeddings(body: EmbeddingsRequestBody, res: ServerResponse): Promise<void> {
    embeddingRequests.push(body);
    const { behaviour, delayMs } = embeddings;
    if (delayMs) await sleep(delayMs);
    if (res.destroyed || behaviour.kind === 'hang') return;
    if (behaviour.kind === 'error') {
      sendError(res, behaviour.status, behaviour.message ?? `scripted ${behaviour.status}`);
      return;
    }
    const inputs = Array.isArray(body.input) ? body.input : [String(body.input)];
    const vector = behaviour.kind === 'vectors' && behaviour.vector ? behaviour.vector : bagOfWordsVector;
    let data: Array<{ object: string; index: number; embedding: unknown[] }> = inputs.map((text, index) => ({
      object: 'embedding',
      index,
      embedding: vector(text),
    }));
    if (behaviour.kind === 'wrong-dimensions')
      data = data.map((item, i) => (i === 0 ? item : { ...item, embedding: item.embedding.slice(1) }));
    if (behaviour.kind === 'nan')
      data = data.map((item) => ({ ...item, embedding: ['NaN', ...item.embedding.slice(1)] }));
    if (behaviour.kind === 'fewer') data = data.slice(1);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        object: 'list',
        data,
        model: body.model,
        usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
      }),
    );
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method === 'POST' && path.endsWith('/embeddings')) {
      embeddingHeaders.push(req.headers);
      await handleEmbeddings(JSON.parse(Buffer.concat(chunks).toString('utf8')) as EmbeddingsRequestBody, res);
      return;
    }
    if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
      sendError(res, 404, `no route ${req.method} ${path}`);
      return;
    }
    let body: ChatRequestBody;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequestBody;
    } catch {
      sendError(res, 400, 'request body is not JSON');
      return;
    }
    const record: RecordedRequest = {
      method: req.method,
      path,
      headers: req.headers,
      body,
      receivedAt: performance.now(),
    };
    requests.push(record);
    res.on('close', () => {
      record.closedAt = performance.now();
      record.completed = res.writableFinished;
    });
    const script = queue.shift() ?? standing;
    if (script.delayMs) await sleep(script.delayMs);
    if (res.destroyed) return;

    const { behaviour } = script;
    if (script.rejectJsonSchema && body.response_format?.type === 'json_schema') {
      sendError(res, 400, "response_format type 'json_schema' is not supported by this model", 'response_format');
      return;
    }
    if (script.rejectStreamOptions && body.stream_options !== undefined) {
      sendError(res, 400, 'Unrecognized request argument supplied: stream_options', 'stream_options');
      return;
    }
    if (behaviour.kind === 'hang') return; // the socket stays open until the client aborts or close()
    if (behaviour.kind === 'error') {
      sendError(
        res,
        behaviour.status,
        behaviour.message ?? `scripted ${behaviour.status}`,
        undefined,
        behaviour.headers,
      );
      return;
    }

    const content = contentFor(behaviour, body);
    const id = `chatcmpl-test-${++counter}`;
    const created = Math.floor(Date.now() / 1000);
    const promptTokens = approxTokens(body.messages.map((message) => message.content).join('\n'));
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: approxTokens(content),
      total_tokens: promptTokens + approxTokens(content),
    };

    if (!body.stream) {
      const stopAt = behaviour.kind === 'cut' || behaviour.kind === 'stall' ? behaviour.afterChars : content.length;
      if (behaviour.kind === 'stall') return;
      if (behaviour.kind === 'cut') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(JSON.stringify({ id, object: 'chat.completion' }).slice(0, stopAt));
        res.destroy();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null }],
          usage,
        }),
      );
      return;
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    // Waits while the socket's buffer is full, so that a huge or endless answer goes at the pace
    // the client reads it (and the double's memory stays flat).
    const send = async (delta: Record<string, unknown>, finish: string | null = null) => {
      const event = `data: ${JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created,
        model: body.model,
        choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
      })}\n\n`;
      if (!res.write(event) && !res.destroyed) {
        // The listener that did not fire is removed (else every slow write leaves two behind).
        const settled = new AbortController();
        const { signal } = settled;
        await Promise.race([once(res, 'drain', { signal }), once(res, 'close', { signal })]).finally(() =>
          settled.abort(),
        );
      }
    };
    await send({ role: 'assistant', content: '' });
    const limit = behaviour.kind === 'cut' || behaviour.kind === 'stall' ? behaviour.afterChars : content.length;
    const step = Math.max(1, script.chunkChars ?? 24);
    for (let at = 0; at < Math.min(limit, content.length); at += step) {
      if (res.destroyed) return;
      await send({ content: content.slice(at, Math.min(at + step, limit)) });
      if (script.chunkDelayMs) await sleep(script.chunkDelayMs);
    }
    if (behaviour.kind === 'endless') {
      const unit = (behaviour.unit ?? '\n').repeat(Math.max(1, Math.ceil(step / (behaviour.unit ?? '\n').length)));
      while (!res.destroyed) {
        await send({ content: unit });
        // A pause (or at least a turn of the event loop) between chunks, so the double never hogs the CPU.
        await (script.chunkDelayMs ? sleep(script.chunkDelayMs) : new Promise((resolve) => setImmediate(resolve)));
      }
      return;
    }
    if (behaviour.kind === 'stall') return;
    if (behaviour.kind === 'cut') {
      // Let what was sent reach the client (an SSE comment flushes behind it), then drop the connection.
      await new Promise<void>((resolve) => res.write(':\n\n', () => resolve()));
      await sleep(10);
      res.destroy();
      return;
    }
    await send({}, 'stop');
    if (body.stream_options?.include_usage) {
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage })}\n\n`,
      );
    }
    res.end('data: [DONE]\n\n');
  }

  function sendError(
    res: ServerResponse,
    status: number,
    message: string,
    param?: string,
    headers: Record<string, string> = {},
  ): void {
    const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ error: { message, type, param: param ?? null, code: null } }));
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, `test server failed: ${String(error)}`);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    setScript(script) {
      standing = script;
    },
    enqueue(...scripts) {
      queue.push(...scripts);
    },
    embeddingRequests,
    embeddingHeaders,
    setEmbeddings(behaviour, delayMs = 0) {
      embeddings = { behaviour, delayMs };
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
