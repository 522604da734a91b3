// The process entry point: the only module that reads process.env and listens.
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { ConfigError, parseConfig, withDevelopmentKey, type Config } from './config/index.js';
import { trackConnections } from './http/connection-drain.js';
import { developmentKey } from './auth/development-key.js';
import { stdoutLogDestination } from './logging/log-destination.js';
import { listenForMetrics } from './metrics/metrics-server.js';
import { startTracing } from './tracing/index.js';

const DEV_PROJECT_ID = 'dev-project';
const DEV_TOKEN_LIFETIME = '24h';

let config: Readonly<Config>;
try {
  config = parseConfig(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`catalog-search: ${error.message}\n`);
  process.exit(1);
}

// Outside production with no key set, use a development HS256 key (kept across restarts) so that `npm start` just works.
const devMode = config.auth === undefined;
const devKey = devMode ? developmentKey() : undefined;
if (devKey) config = withDevelopmentKey(config, devKey.secret);

// A stdout whose reader has gone fails the quick start's write (EPIPE): nothing to do about it, and no
// reason to stop serving. Log lines have their own destination, which stops writing on such a failure.
process.stdout.on('error', () => {});
const logs = stdoutLogDestination();
/** At most this long (and within the shutdown's time limit) for the last log lines to be written. */
const LOG_CLOSE_MS = 1000;

// Only when an OTLP endpoint is configured: otherwise no OpenTelemetry module is loaded.
const tracing = config.tracing ? await startTracing(config.tracing) : undefined;
const app = buildApp(config, { logStream: logs, ...(tracing ? { tracing } : {}) });
const connections = trackConnections(app.server);
/** A keep-alive connection with no request for this long is closed on shutdown (see http/connection-drain.ts). */
const DRAIN_QUIET_MS = 1000;
// Set when METRICS_PORT serves metrics apart from the API.
let metricsServer: Server | undefined;

closeWithGrace({ delay: config.shutdown.timeoutMs, logger: false }, async ({ signal, err }) => {
  // closeWithGrace exits with code 1 at this time; everything below must be done before it.
  const hardStopAt = Date.now() + config.shutdown.timeoutMs;
  if (err) app.log.error({ err }, 'shutting down after an uncaught error');
  else app.log.info({ signal }, 'shutting down: finishing in-flight requests');
  // Readiness fails first, so load balancers stop sending before the listener closes.
  app.lifecycle.shuttingDown = true;
  if (config.shutdown.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdown.delayMs));
  app.log.info({ closing: true }, 'closing the listener; waiting for in-flight requests');
  // Half a second of the hard limit is left for app.close() (plugins' onClose hooks).
  app.lifecycle.closingConnections = true;
  await connections.drain({
    quietMs: DRAIN_QUIET_MS,
    deadlineMs: Math.max(0, config.shutdown.timeoutMs - config.shutdown.delayMs - 500),
  });
  await app.close();
  // A scraper's keep-alive connection must not hold the exit.
  metricsServer?.close();
  metricsServer?.closeAllConnections();
  // The last spans (those of the requests just finished) are still in the batch. Their export is given up
  // a quarter of the limit (at most a second) before the hard stop: the last log lines and a clean exit
  // come after it, and a busy host can hold the loop for a few hundred ms (issue 47: 100 ms was too little).
  const afterFlushMs = Math.min(1000, config.shutdown.timeoutMs / 4);
  await tracing
    ?.shutdown(Math.max(0, hardStopAt - Date.now() - afterFlushMs))
    .catch((error: unknown) => app.log.warn({ err: error }, 'could not export the last spans'));
  app.log.info('shut down');
  await logs.close(Math.max(0, Math.min(LOG_CLOSE_MS, hardStopAt - Date.now() - 50)));
});

try {
  await app.listen({ host: config.host, port: config.port });
  const { metrics } = config;
  if (metrics.enabled && metrics.port !== undefined) {
    metricsServer = await listenForMetrics(app.metrics.registry, {
      host: metrics.host,
      port: metrics.port,
      path: metrics.path,
    });
    app.log.info(
      { metrics: `http://${metrics.host}:${metrics.port}${metrics.path}` },
      'metrics served on their own port',
    );
  }
} catch (error) {
  app.log.fatal({ err: error }, 'could not start listening');
  await logs.close(LOG_CLOSE_MS);
  process.exit(1);
}

if (devMode) printDevelopmentQuickStart();

function printDevelopmentQuickStart(): void {
  const token = app.jwt.sign(
    { [config.auth!.projectClaim]: DEV_PROJECT_ID, sub: 'dev' },
    { expiresIn: DEV_TOKEN_LIFETIME },
  );
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  // A wildcard listen address is reachable on loopback; a specific one only on itself.
  const wildcard = ['0.0.0.0', '::', '0:0:0:0:0:0:0:0'].includes(config.host);
  const host = wildcard ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
  // From dist/src/server.js (npm start) or src/server.ts (tsx) up to the repository root.
  const sample = ['../examples/search-request.json', '../../examples/search-request.json']
    .map((path) => fileURLToPath(new URL(path, import.meta.url)))
    .find((path) => existsSync(path));
  process.stdout.write(
    [
      '',
      'catalog-search is running in DEVELOPMENT mode: no AUTH_JWT_SECRET, AUTH_JWT_PUBLIC_KEY or AUTH_JWKS_URL is set,',
      ...(devKey?.file
        ? [
            `so it signs with a development HS256 key kept in ${devKey.file} (git-ignored): its tokens survive a restart,`,
            'and `npm run mint-token -- --project NAME` signs more with the same key.',
          ]
        : ['so it made a throwaway HS256 key (tokens stop working when the process stops).']),
      `A token for project "${DEV_PROJECT_ID}", valid for ${DEV_TOKEN_LIFETIME}:`,
      '',
      `TOKEN=${token}`,
      '',
      'Search the bundled sample tool list (paste the TOKEN line and this one into a shell):',
      '',
      `curl -s http://${host}:${port}/v1/catalog/search -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' --data @${sample ?? 'examples/search-request.json'}`,
      '',
      ...(config.docs.enabled
        ? [`API reference: http://${host}:${port}/docs (OpenAPI document: /openapi.yaml)`, '']
        : []),
    ].join('\n') + '\n',
  );
}
