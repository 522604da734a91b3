import type { FastifyBodyParser, FastifyInstance, FastifyRequest } from 'fastify';
import { sentBytesAt, type ToolSetStore } from './tool-set-store.js';
import { toolsValueSpan } from './tools-bytes.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The bytes of the body's `tools`, found while the list this project sent last has no bytes noted:
     * resentList notes them when the list read as it (the list's next send is then not parsed).
     */
    sentToolsBytes: Uint8Array | undefined;
  }
}

const EMPTY_LIST = Buffer.from('[]');

type JsonParser = (
  request: unknown,
  body: string | Buffer,
  done: (error: Error | null, value?: unknown) => void,
) => void;

/**
 * The search routes' JSON parser. Routers send the same list with every search, and a list of 5,000
 * tools is 4.5 MB: parsing it into objects only to find them equal to the list the project sent last
 * made ~12 MB of garbage on the event loop per search, whose collections stalled every other tenant's
 * searches (docs/performance.md#a-list-sent-again-as-the-same-bytes-not-parsed). When a body's `tools`
 * are the bytes this project's last list was sent as (same length and SHA-256), only the rest of the
 * body is parsed, and its `tools` are the held list, as a search by reference would use. Any other body
 * (another list, the `servers` form, a body the scan cannot place) is parsed whole by Fastify's own
 * JSON parser, with the app's settings.
 */
export function parseResentBodies(app: FastifyInstance, store: ToolSetStore): void {
  const { onProtoPoisoning = 'error', onConstructorPoisoning = 'error' } = app.initialConfig;
  // Typed for strings; secure-json-parse takes a Buffer as well (decoded as UTF-8, a BOM dropped).
  const parseJson = app.getDefaultJsonParser(onProtoPoisoning, onConstructorPoisoning) as unknown as JsonParser;
  app.decorateRequest('sentToolsBytes', undefined);
  app.removeContentTypeParser('application/json');
  const parse: FastifyBodyParser<Buffer> = (request, bytes, done) => {
    const body = store.enabled ? resentBody(request, bytes, store, parseJson) : undefined;
    if (body !== undefined) done(null, body);
    else parseJson(request, bytes, done);
  };
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parse);
}

/**
 * The body, its `tools` the held list, when they are the bytes that list was last sent as; else
 * undefined (and, while the held list has no bytes noted, the bytes of this body's `tools` kept on the
 * request for resentList).
 */
export function resentBody(
  request: Pick<FastifyRequest, 'projectId' | 'sentToolsBytes'>,
  bytes: Buffer,
  store: ToolSetStore,
  parseJson: JsonParser,
): Record<string, unknown> | undefined {
  const latest = store.latestSent(request.projectId);
  if (latest === undefined) return undefined;
  const { sentAs } = latest;
  if (sentAs === undefined) {
    // One scan (~2 ms for 4.5 MB), while the held list has no bytes noted: its second send (the first
    // made it the held list), or any send of a list whose reading skips tools (never noted).
    const span = toolsValueSpan(bytes);
    request.sentToolsBytes = span && bytes.subarray(span.start, span.end);
    return undefined;
  }
  // The `tools` value is skipped by its hash, not scanned.
  const span = toolsValueSpan(bytes, (at) => (sentBytesAt(bytes, at, sentAs) ? at + sentAs.length : -1));
  if (span === undefined) return undefined;
  const rest = Buffer.concat([bytes.subarray(0, span.start), EMPTY_LIST, bytes.subarray(span.end)]);
  let body: unknown;
  parseJson(request, rest, (error, value) => {
    if (!error) body = value;
  });
  // A rest that does not parse is parsed again whole, for the error the whole body gets.
  if (!isRecord(body) || !Array.isArray(body.tools) || body.tools.length > 0) return undefined;
  body.tools = latest.tools;
  return body;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
