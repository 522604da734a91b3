// Child process of bench/new-list.bench.ts: the service twice on loopback, with the semantic stage
// on (EMBEDDINGS=on: the embedded encoder) and off (the defaults), and tokens for a few projects (one per round, so
// that each round's list is new to its project). Kept out of the parent so that the load generator
// does not share the services' event loop.
import { benchConfig, startBenchService } from './bench-service.js';

// BENCH_BACKGROUND_NICE sets EMBEDDINGS_BACKGROUND_NICE (default 10) to compare lists embedded at another priority.
const nice = process.env.BENCH_BACKGROUND_NICE;
const on = await startBenchService(
  benchConfig({ EMBEDDINGS: 'on', ...(nice === undefined ? {} : { EMBEDDINGS_BACKGROUND_NICE: nice }) }),
);
const off = await startBenchService(benchConfig({ EMBEDDINGS: 'off' }));
// Both services verify with the same development key.
const tokens = Array.from({ length: 10 }, (_, round) =>
  on.app.jwt.sign({ projectId: `new-list-${round}`, sub: 'bench' }, { expiresIn: '1h' }),
);
process.send!({ onPort: on.port, offPort: off.port, tokens });
process.on('disconnect', () => process.exit(0));
