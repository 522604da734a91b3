// Child process of bench/service.bench.ts: runs the real service and a bare "floor" app on loopback
// ports and reports them (plus a token) to the parent over IPC. Kept out of the parent so that the
// load generator and the servers do not share one event loop.
import { SearchRequestSchema } from '@catalog-search/core';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { parseConfig, withDevelopmentKey } from '../src/config.js';

const config = withDevelopmentKey(
  // The semantic stage is measured on its own in semantic.bench.ts; here a list's background embedding
  // would take CPU from the requests being counted. One project sends everything, so the per-project
  // limits (count, work, bytes, in flight) are off: they would answer 429 long before the service is busy.
  parseConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    RATE_LIMIT_PER_MINUTE: '0',
    RATE_LIMIT_WORK_PER_MINUTE: '0',
    RATE_LIMIT_MB_PER_MINUTE: '0',
    MAX_IN_FLIGHT_PER_PROJECT: '0',
    LOG_LEVEL: 'info',
    EMBEDDINGS: 'off',
  }),
  'bench-secret-bench-secret-bench-secret!!',
);
// The service logs as in production (info: request lines and the audit line), into /dev/null.
const service = buildApp(config, { logStream: pino.destination({ dest: '/dev/null', sync: false }) });
await service.listen({ host: '127.0.0.1', port: 0 });

// The floor: a bare Fastify route that only parses and validates the same body.
const floor = Fastify({ bodyLimit: config.http.bodyLimitBytes, logger: false });
floor.setValidatorCompiler(TypeBoxValidatorCompiler);
floor.post('/floor', { schema: { body: SearchRequestSchema } }, async () => ({ ok: true }));
await floor.listen({ host: '127.0.0.1', port: 0 });

const portOf = (server: typeof floor.server) => (server.address() as { port: number }).port;
process.send!({
  servicePort: portOf(service.server),
  floorPort: portOf(floor.server),
  token: service.jwt.sign({ projectId: 'bench', sub: 'bench' }, { expiresIn: '1h' }),
});
process.on('disconnect', () => process.exit(0));
