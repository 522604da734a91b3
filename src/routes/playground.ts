// GET /playground: a page for trying the API in a browser (PLAYGROUND; on outside production, off there
// unless set). It is a client of the public API like any other: it sends the bearer token the user
// pastes, so it adds no way in. Only a development server (signing with its own development key) fills
// in a token, and only for a browser on the same machine (the page is then what `npm start` printed).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/index.js';
import { playgroundPage, PLAYGROUND_SCRIPT, PLAYGROUND_STYLE } from '../playground/page.js';

const PLAYGROUND_PATH = '/playground';
const DEV_PROJECT_ID = 'dev-project';

// Nothing from elsewhere, no inline code: the script and style are this route's own files.
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
    "form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** The bundled sample list (examples/search-request.json), from src/routes (tsx) or dist/src/routes (npm start, the image). */
function readSample(): string | undefined {
  const path = ['../../examples/search-request.json', '../../../examples/search-request.json']
    .map((relative) => fileURLToPath(new URL(relative, import.meta.url)))
    .find((candidate) => existsSync(candidate));
  return path === undefined ? undefined : readFileSync(path, 'utf8');
}

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6: the browser runs on the service's own machine. */
function fromLoopback(request: FastifyRequest): boolean {
  const address = (request.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
  return address === '::1' || address.startsWith('127.');
}

export default async function playgroundRoutes(app: FastifyInstance, { config }: { config: Readonly<Config> }) {
  const sample = readSample();
  const hidden = { schema: { hide: true } };
  const send = (reply: FastifyReply, type: string, body: string) =>
    reply.headers(SECURITY_HEADERS).type(type).send(body);

  app.get(PLAYGROUND_PATH, hidden, async (request, reply) => {
    // Never with a real AUTH_* key (withDevelopmentKey alone sets `development`), never in production.
    const mint = config.auth?.development === true && !config.production && fromLoopback(request);
    const token = mint
      ? app.jwt.sign({ [config.auth!.projectClaim]: DEV_PROJECT_ID, sub: 'playground' }, { expiresIn: '24h' })
      : undefined;
    return send(reply, 'text/html; charset=utf-8', playgroundPage({ token, sample: sample !== undefined }));
  });
  app.get(`${PLAYGROUND_PATH}/playground.js`, hidden, async (_request, reply) =>
    send(reply, 'text/javascript; charset=utf-8', PLAYGROUND_SCRIPT),
  );
  app.get(`${PLAYGROUND_PATH}/playground.css`, hidden, async (_request, reply) =>
    send(reply, 'text/css; charset=utf-8', PLAYGROUND_STYLE),
  );
  if (sample !== undefined)
    app.get(`${PLAYGROUND_PATH}/sample.json`, hidden, async (_request, reply) =>
      send(reply, 'application/json; charset=utf-8', sample),
    );
}
