#!/usr/bin/env node
// Mints a bearer token the service accepts, for smoke tests of a real deployment (never for production
// callers: the Router issues those). Plain Node, no dependencies, so it runs from a clone without a build.
//
//   AUTH_JWT_SECRET=... node scripts/mint-token.mjs --project my-project [--issuer I] [--audience A]
//   npm run -s mint-token -- --project my-project     (the development server's key, from .dev-jwt-secret)
//   node scripts/mint-token.mjs --private-key key.pem --project my-project      (RS/PS/ES/EdDSA deployments)
//
// Options: --project (required), --issuer, --audience, --claim (default projectId, as AUTH_PROJECT_CLAIM),
// --ttl seconds (default 600), --alg (default HS256 for a secret; from the key type otherwise), --kid.
// Prints the token alone on stdout, e.g.  TOKEN=$(node scripts/mint-token.mjs --project smoke)
import { createHmac, createPrivateKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    project: { type: 'string' },
    issuer: { type: 'string', default: process.env.AUTH_ISSUER?.split(',')[0]?.trim() || undefined },
    audience: { type: 'string', default: process.env.AUTH_AUDIENCE?.split(',')[0]?.trim() || undefined },
    claim: { type: 'string', default: process.env.AUTH_PROJECT_CLAIM || 'projectId' },
    ttl: { type: 'string', default: '600' },
    alg: { type: 'string' },
    kid: { type: 'string' },
    'private-key': { type: 'string' },
  },
});

function fail(message) {
  process.stderr.write(`mint-token: ${message}\n`);
  process.exit(2);
}

if (!values.project) fail('--project is required (the tenant the token is for)');
const ttl = Number(values.ttl);
if (!Number.isInteger(ttl) || ttl <= 0) fail('--ttl must be a whole number of seconds');

// Without a secret or a key: the development server's key (src/development-key.ts keeps it in this
// git-ignored file when `npm start` runs with no key configured), so its tokens are minted too.
const DEVELOPMENT_KEY_FILE = fileURLToPath(new URL('../.dev-jwt-secret', import.meta.url));
const secret = process.env.AUTH_JWT_SECRET || (values['private-key'] ? undefined : developmentKey());

function developmentKey() {
  if (process.env.NODE_ENV === 'production') return undefined;
  try {
    const key = readFileSync(DEVELOPMENT_KEY_FILE, 'utf8').trim();
    if (key === '') return undefined;
    process.stderr.write(
      `mint-token: no AUTH_JWT_SECRET: signing with the development server's key (${DEVELOPMENT_KEY_FILE})\n`,
    );
    return key;
  } catch {
    return undefined;
  }
}
let alg;
let signer;
if (values['private-key']) {
  const key = createPrivateKey(readFileSync(values['private-key']));
  const type = key.asymmetricKeyType;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  alg =
    values.alg ??
    (type === 'ed25519'
      ? 'EdDSA'
      : type === 'ec'
        ? { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' }[curve]
        : type === 'rsa-pss'
          ? 'PS256'
          : 'RS256');
  if (!alg) fail(`unsupported key type ${type} ${curve ?? ''}`);
  const hash = alg === 'EdDSA' ? null : `sha${alg.slice(2)}`;
  const options = alg.startsWith('ES')
    ? { key, dsaEncoding: 'ieee-p1363' }
    : alg.startsWith('PS')
      ? { key, padding: 6, saltLength: Number(alg.slice(2)) / 8 }
      : key;
  signer = (input) => sign(hash, Buffer.from(input), options);
} else if (secret) {
  alg = values.alg ?? 'HS256';
  if (!/^HS(256|384|512)$/.test(alg)) fail('a secret signs HS256, HS384 or HS512 only');
  signer = (input) =>
    createHmac(`sha${alg.slice(2)}`, secret)
      .update(input)
      .digest();
} else {
  fail(
    "set AUTH_JWT_SECRET (the deployment's secret) or pass --private-key (the key whose public half the deployment trusts); " +
      'for the development server (`npm start` with no key configured), start it once: it keeps its key in .dev-jwt-secret',
  );
}

const now = Math.floor(Date.now() / 1000);
const payload = {
  sub: 'mint-token',
  [values.claim]: values.project,
  iat: now,
  exp: now + ttl,
  ...(values.issuer ? { iss: values.issuer } : {}),
  ...(values.audience ? { aud: values.audience } : {}),
};
const header = { alg, typ: 'JWT', ...(values.kid ? { kid: values.kid } : {}) };
const encode = (part) => Buffer.from(JSON.stringify(part)).toString('base64url');
const unsigned = `${encode(header)}.${encode(payload)}`;
process.stdout.write(`${unsigned}.${signer(unsigned).toString('base64url')}\n`);
