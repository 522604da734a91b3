import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { claims, signJwt } from '../helpers/tokens.js';

/** An ES256 signing key with its kid, as an identity provider would hold it. */
export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export function newSigningKey(kid: string): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { kid, privateKey, publicKey };
}

export function signWith(key: SigningKey, extraClaims: Record<string, unknown> = {}): string {
  return signJwt(claims(extraClaims), { alg: 'ES256', key: key.privateKey, header: { kid: key.kid } });
}

/**
 * A JWKS endpoint on loopback that tests control: which keys it publishes, whether it is down
 * (503) or hangs for a while before answering, and how many fetches it has served.
 */
export class JwksServer {
  readonly published = new Map<string, SigningKey>();
  fetches = 0;
  /** When each fetch arrived (Date.now()). */
  readonly fetchedAt: number[] = [];
  down = false;
  /** Milliseconds each answer is held back (a slow or hung key server). */
  delayMs = 0;
  private readonly server: Server;
  url = '';

  constructor() {
    this.server = createServer((_request, response) => {
      this.fetches += 1;
      this.fetchedAt.push(Date.now());
      const answer = () => {
        if (this.down) return response.writeHead(503, { 'content-type': 'application/json' }).end('{}');
        const keys = [...this.published.values()].map(({ kid, publicKey }) => ({
          ...publicKey.export({ format: 'jwk' }),
          kid,
          alg: 'ES256',
          use: 'sig',
        }));
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
      };
      if (this.delayMs > 0) setTimeout(answer, this.delayMs).unref();
      else answer();
    });
  }

  publish(key: SigningKey): SigningKey {
    this.published.set(key.kid, key);
    return key;
  }

  remove(key: SigningKey): void {
    this.published.delete(key.kid);
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/.well-known/jwks.json`;
    return this;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
