// Child process of bench/service.bench.ts: runs the real service and a bare "floor" app on loopback
// ports and reports them (plus a token) to the parent over IPC. Kept out of the parent so that the
// load generator and the servers do not share one event loop.
import { SearchRequestSchema } from '@catalog-search/core';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { benchConfig, startBenchService } from './bench-service.js';

// The semantic stage is measured on its own in semantic.bench.ts; here a list's background embedding
// would take CPU from the requests being counted.
const config = benchConfig({ EMBEDDINGS: 'off' });
const service = await startBenchService(config);

// The floor: a bare Fastify route that only parses and validates the same body.
const floor = Fastify({ bodyLimit: config.http.bodyLimitBytes, logger: false });
floor.setValidatorCompiler(TypeBoxValidatorCompiler);
floor.post('/floor', { schema: { body: SearchRequestSchema } }, async () => ({ ok: true }));
await floor.listen({ host: '127.0.0.1', port: 0 });

process.send!({
  servicePort: service.port,
  floorPort: (floor.server.address() as { port: number }).port,
  token: service.token,
});
process.on('disconnect', () => process.exit(0));
