// Runs the OpenAI-compatible double in its own process (for benchmarks, so that its CPU work does not
// count against the service): prints its base URL as the first stdout line, answers every request by
// grading candidates that share a word with the queries, and stops on SIGTERM or when stdin closes.
import { startOpenAITestServer } from './openai-test-server.js';

const double = await startOpenAITestServer({ behaviour: { kind: 'grade' } });
process.stdout.write(`${double.baseURL}\n`);
const stop = () => void double.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('close', stop);
process.stdin.resume();
