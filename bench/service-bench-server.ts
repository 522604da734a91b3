// Child process of bench/service.bench.ts: runs the real service and a bare "floor" app on loopback
// ports and reports them (plus a token) to the parent over IPC. Kept out of the parent so that the
// load generator and the servers do not share one event loop.
import { SearchRequestSchema } from '@catalog-search/core';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { benchConfig, startBenchService } from './bench-service.js';

// The service twice: with the semantic stage off (the defaults), and with the embedded encoder
// (EMBEDDINGS=on), whose background embedding of a new list takes CPU from the requests being counted,
// as it does in production.
const config = benchConfig({ EMBEDDINGS: 'off' });
const service = await startBenchService(config);
const stageOn = await startBenchService(benchConfig({ EMBEDDINGS: 'on' }));
// One project per round of the stage-on service, so that each round's list is new to it (its first minute).
const projectTokens = Array.from({ length: 32 }, (_, round) =>
  stageOn.app.jwt.sign({ projectId: `round-${round}`, sub: 'bench' }, { expiresIn: '1h' }),
);

// The floor: a bare Fastify route that only parses and validates the same body.
const floor = Fastify({ bodyLimit: config.http.bodyLimitBytes, logger: false });
floor.setValidatorCompiler(TypeBoxValidatorCompiler);
floor.post('/floor', { schema: { body: SearchRequestSchema } }, async () => ({ ok: true }));
await floor.listen({ host: '127.0.0.1', port: 0 });

process.send!({
  servicePort: service.port,
  stageOnPort: stageOn.port,
  projectTokens,
  floorPort: (floor.server.address() as { port: number }).port,
  token: service.token,
});
process.on('disconnect', () => process.exit(0));
