import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

/**
 * Metrics on their own port (METRICS_PORT), for production: the port is left out of the public
 * Service and only the in-cluster scraper reaches it. Only `GET <path>` answers; started by server.ts.
 */
export async function listenForMetrics(
  registry: Registry,
  options: { host: string; port: number; path: string },
): Promise<Server> {
  const server = createServer((request, response) => {
    // The path compared as sent, without parsing it as a URL: a malformed target such as `//[` makes
    // `new URL` throw, and an exception in this listener would end the process.
    if (request.method !== 'GET' || (request.url ?? '/').split('?')[0] !== options.path) {
      response.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  return server;
}
