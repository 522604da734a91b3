// Runs the OpenAI-compatible double in its own process (for benchmarks and the reliability scenarios,
// so that its CPU work does not count against the service): prints its base URL as the first stdout
// line and stops on SIGTERM or when stdin closes. By default it grades candidates that share a word
// with the queries; `--script=NAME` makes it misbehave instead (see SCRIPTS).
import { startOpenAITestServer, type Script } from './openai-test-server.js';

const SCRIPTS = {
  grade: { behaviour: { kind: 'grade' } },
  /** The JSON-mode whitespace loop: deltas of 16 newlines, about a thousand deltas a second, forever. */
  'endless-whitespace': { behaviour: { kind: 'endless', unit: '\n' }, chunkChars: 16, chunkDelayMs: 1 },
  /** A 10 MB answer in 16 KB deltas. */
  'huge-answer': {
    behaviour: {
      kind: 'content',
      content: `{"results":[{"id":"t1","grade":3,"why":"${'x'.repeat(10 * 1024 * 1024)}"}]}`,
    },
    chunkChars: 16 * 1024,
  },
  /** One whole grade, then a second whose reason runs to 10 MB, in 16 KB deltas. */
  'huge-answer-after-grade': {
    behaviour: {
      kind: 'content',
      content: `{"results":[{"id":"t1","grade":3,"why":"first"},{"id":"t2","grade":2,"why":"${'x'.repeat(10 * 1024 * 1024)}"}]}`,
    },
    chunkChars: 16 * 1024,
  },
  /** 10 MB in a single server-sent event. */
  'huge-single-event': {
    behaviour: { kind: 'content', content: 'y'.repeat(10 * 1024 * 1024) },
    chunkChars: 10 * 1024 * 1024,
  },
  /** A model that accepts the call and never answers (the socket stays open until the caller gives up). */
  hang: { behaviour: { kind: 'hang' } },
} satisfies Record<string, Script>;

const name = process.argv.find((arg) => arg.startsWith('--script='))?.slice('--script='.length) ?? 'grade';
if (!(name in SCRIPTS)) throw new Error(`unknown --script=${name}; one of ${Object.keys(SCRIPTS).join(', ')}`);
const double = await startOpenAITestServer(SCRIPTS[name as keyof typeof SCRIPTS]);
process.stdout.write(`${double.baseURL}\n`);
const stop = () => void double.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('close', stop);
process.stdin.resume();
