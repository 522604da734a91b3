import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../src/errors.js';
import { prepareRequest } from '../src/validation.js';
import { REQUEST, TOOLS } from './loopback.js';

// The envelope is checked strictly (a bad field is the caller's bug); the tools leniently, by
// core's reader, the same one the service uses (packages/core/test/tool-list.test.ts covers it).
describe('prepareRequest', () => {
  it.each<[string, unknown, string]>([
    ['not an object', [REQUEST], ''],
    ['a query of the wrong type', { ...REQUEST, query: 'create an issue' }, '/query'],
    ['an unknown filter field', { ...REQUEST, filter: { server: ['github'] } }, '/filter/server'],
    ['minRelevance above 1', { ...REQUEST, minRelevance: 2 }, '/minRelevance'],
    ['no tools and no servers', { query: REQUEST.query }, '/tools'],
    ['a server without serverId', { query: REQUEST.query, servers: [{ tools: [] }] }, '/servers/0/serverId'],
  ])('rejects %s, naming the field', (_name, request, path) => {
    let caught: unknown;
    try {
      prepareRequest(request);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidRequestError);
    expect((caught as InvalidRequestError).path).toBe(path);
  });

  it('keeps real tools as they are and skips what cannot be used', () => {
    const prepared = prepareRequest({ ...REQUEST, tools: [...TOOLS, null, { toolKey: 'x:' }] });
    expect(prepared.tools).toEqual(TOOLS);
    expect(prepared.skippedMeta.skippedCount).toBe(2);
  });
});
