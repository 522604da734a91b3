// The double itself speaks the wire protocol the real SDK expects, in both response styles.
import OpenAI, { InternalServerError, RateLimitError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAITestServer, type OpenAITestServer } from '../helpers/openai-test-server.js';

let double: OpenAITestServer;
let client: OpenAI;
beforeAll(async () => {
  double = await startOpenAITestServer();
  client = new OpenAI({ baseURL: double.baseURL, apiKey: 'k', maxRetries: 0 });
});
afterAll(() => double.close());

const messages = [
  { role: 'system' as const, content: 'grade' },
  {
    role: 'user' as const,
    content:
      'QUERIES:\n1. list calendar events\n\nCANDIDATES:\nt1 | calendar_list_events | Cal\nt2 | send_email | Mail\n',
  },
];

describe('OpenAI-compatible double', () => {
  it('answers a plain JSON chat completion, grading by the query words', async () => {
    double.setScript({ behaviour: { kind: 'grade' } });
    const completion = await client.chat.completions.create({
      model: 'm',
      messages,
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(completion.choices[0]!.message.content!)).toEqual({
      results: [{ id: 't1', grade: 3, why: 'matches the request' }],
    });
    expect(completion.usage!.total_tokens).toBeGreaterThan(0);
    expect(double.requests.at(-1)!.body.response_format).toEqual({ type: 'json_object' });
  });

  it('streams SSE chunks, then usage when asked, then [DONE]', async () => {
    double.setScript({ behaviour: { kind: 'content', content: 'abcdefghij' }, chunkChars: 3 });
    const stream = await client.chat.completions.create({
      model: 'm',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const deltas: string[] = [];
    let usage = 0;
    let finish: string | null = null;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) deltas.push(chunk.choices[0].delta.content);
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage?.total_tokens ?? usage;
    }
    expect(deltas).toEqual(['abc', 'def', 'ghi', 'j']);
    expect(finish).toBe('stop');
    expect(usage).toBeGreaterThan(0);
  });

  it('answers scripted errors with OpenAI-style bodies the SDK maps to its error classes', async () => {
    double.enqueue(
      { behaviour: { kind: 'error', status: 429, headers: { 'retry-after': '2' } } },
      { behaviour: { kind: 'error', status: 503 } },
    );
    await expect(client.chat.completions.create({ model: 'm', messages })).rejects.toBeInstanceOf(RateLimitError);
    await expect(client.chat.completions.create({ model: 'm', messages })).rejects.toBeInstanceOf(InternalServerError);
  });
});
