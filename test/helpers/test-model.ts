// One OpenAI-compatible test server shared by a test file's tests, for files that drive the LLM stage.
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startOpenAITestServer, type OpenAITestServer } from './openai-test-server.js';

/**
 * Starts the test server before the file's tests and closes it after them; after each test it forgets
 * the requests it recorded and grades again. Call at the top of a file; use the result inside tests.
 */
export function testModelForFile(): OpenAITestServer {
  let server: OpenAITestServer | undefined;
  const current = (): OpenAITestServer => {
    if (server === undefined) throw new Error('the test model starts before the tests: use it inside them');
    return server;
  };
  beforeAll(async () => {
    server = await startOpenAITestServer();
  });
  afterAll(() => server?.close());
  afterEach(() => {
    current().requests.length = 0;
    current().setScript({ behaviour: { kind: 'grade' } });
  });
  return {
    get baseURL() {
      return current().baseURL;
    },
    get requests() {
      return current().requests;
    },
    get embeddingRequests() {
      return current().embeddingRequests;
    },
    get embeddingHeaders() {
      return current().embeddingHeaders;
    },
    setScript: (script) => current().setScript(script),
    enqueue: (...scripts) => current().enqueue(...scripts),
    setEmbeddings: (behaviour, delayMs) => current().setEmbeddings(behaviour, delayMs),
    close: () => current().close(),
  };
}
