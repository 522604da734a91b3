import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { APIUserAbortError, createCatalogSearchClient, type FallbackEvent } from '@catalog-search/client';
import { toolSetId } from '@catalog-search/core';
import {
  cloudAnswer,
  problem,
  REQUEST,
  sendJson,
  startServer,
  TOOLS,
  type Handler,
  type LoopbackServer,
} from './loopback.js';

// The reference protocol (docs/api.md, "Tool-set references") against services that misbehave or
// differ from the current one; test/client/client-tool-sets.test.ts runs it against the real service.
// The promise: a search by reference never fails where the same search with the list would not have.

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

let id: string;
beforeAll(async () => {
  id = await toolSetId(TOOLS);
});

/** What each request carried: its `toolSet`, or 'full' for a list. */
const carried = (loopback: LoopbackServer) =>
  loopback.seen.map(({ body }) =>
    (body as { toolSet?: string }).toolSet !== undefined ? (body as { toolSet: string }).toolSet : 'full',
  );

const byReference = (body: unknown): boolean => (body as { toolSet?: unknown }).toolSet !== undefined;

/** The current service's answer to a list: the cloud answer with the list's id. */
const answerWithId = (res: Parameters<Handler>[1]) =>
  sendJson(res, 200, { ...cloudAnswer(), meta: { ranker: 'llm', requestId: 'r', toolSet: id } });

async function clientOf(handler: Handler, timeoutMs = 5000) {
  server = await startServer(handler);
  const events: FallbackEvent[] = [];
  const client = createCatalogSearchClient({
    baseUrl: server.baseUrl,
    token: 'test-token',
    timeoutMs,
    breaker: false,
    onFallback: (event) => events.push(event),
  });
  return { client, events, server };
}

describe('tool-set references against services that misbehave', () => {
  it('a replica that does not know references (400 for the toolSet field) gets the list, and the search is answered', async () => {
    // A rolling update (or a rollback) puts replicas of the previous version behind the same URL:
    // they refuse the unknown `toolSet` field as any unknown field, as the service did before v1 had references.
    const { client, events, server } = await clientOf((_req, res, body) => {
      if (byReference(body))
        sendJson(res, 400, {
          ...problem(400, 'Invalid request', 'body must NOT have additional properties: toolSet'),
          code: 'INVALID_REQUEST',
        });
      else answerWithId(res);
    });
    for (let i = 0; i < 3; i += 1) expect((await client.search(REQUEST)).source).toBe('cloud');
    expect(events).toEqual([]);
    expect(carried(server)[0]).toBe('full');
    expect(carried(server)[1]).toBe(id);
    expect(carried(server)[2]).toBe('full');
  });

  it('resends the list once and no more when the service answers 409 to the list as well', async () => {
    let answered = 0;
    const { client, events, server } = await clientOf((_req, res) => {
      answered += 1;
      if (answered === 1) answerWithId(res);
      else sendJson(res, 409, problem(409, 'Tool set unknown', 'send the list'));
    });
    expect((await client.search(REQUEST)).source).toBe('cloud');
    const outcome = await client.search(REQUEST);
    expect(outcome.source).toBe('local');
    expect(carried(server)).toEqual(['full', id, 'full']);
    expect(events.map((event) => event.reason)).toEqual(['bad_request']);
  });

  it('the resend after a 409 gets only what is left of the budget', async () => {
    const timeoutMs = 3000;
    let answered = 0;
    let refusedAt = 0;
    const { client, events, server } = await clientOf((_req, res) => {
      answered += 1;
      if (answered === 1) answerWithId(res);
      // The reference is refused late; then the list hangs.
      else if (answered === 2)
        setTimeout(() => {
          refusedAt = performance.now();
          sendJson(res, 409, { ...problem(409, 'Tool set unknown', 'send the list'), code: 'TOOL_SET_UNKNOWN' });
        }, timeoutMs * 0.8);
    }, timeoutMs);
    await client.search(REQUEST);
    const outcome = await client.search(REQUEST);
    const finishedAt = performance.now();
    expect(outcome.fallbackReason).toBe('timeout');
    expect(carried(server)).toEqual(['full', id, 'full']);
    expect(events[0]!.error.message).toBe(`Request timed out after ${timeoutMs} ms.`);
    // Counted from the 409's sending, which the client read after: a fresh budget for the resend would
    // end a whole timeoutMs later or more, on any machine. What is left ends 0.2 × timeoutMs after it,
    // late by however long a busy machine delays the client's timer (the other 2.4 s).
    expect(finishedAt - refusedAt).toBeLessThan(timeoutMs);
  });

  it('a caller abort during the resend rejects the search, with no fallback', async () => {
    let answered = 0;
    const { client, events, server } = await clientOf((_req, res) => {
      answered += 1;
      if (answered === 1) answerWithId(res);
      else if (answered === 2)
        sendJson(res, 409, { ...problem(409, 'Tool set unknown', 'send the list'), code: 'TOOL_SET_UNKNOWN' });
      // The list hangs until the caller gives up.
    });
    await client.search(REQUEST);
    const controller = new AbortController();
    const pending = client.search(REQUEST, { signal: controller.signal }).catch((caught: unknown) => caught);
    while (server.seen.length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    expect(await pending).toBeInstanceOf(APIUserAbortError);
    expect(events).toEqual([]);
    expect(carried(server)).toEqual(['full', id, 'full']);
  });
});
