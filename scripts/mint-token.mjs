#!/usr/bin/env node
// Mints a bearer token the service accepts, for smoke tests of a real deployment (never for production
// callers: the Router issues those). Plain Node, no dependencies, so it runs from a clone without a build.
//
//   AUTH_JWT_SECRET=... node scripts/mint-token.mjs --project my-project [--issuer I] [--audience A]
//   npm run -s mint-token -- --project my-project     (the development server's key, from .dev-jwt-secret)
//   node scripts/mint-token.mjs --private-key key.pem --project my-project      (RS/PS/ES/EdDSA deployments)
//
// Options: --project (required), --issuer, --audience, --project-claim (the claim naming the project;
// default projectId, as AUTH_PROJECT_CLAIM), --ttl (a lifetime: 24h (the default, as the development
// server's token), 30m, 90s or plain seconds), --claim key=value (repeatable; the value is read as JSON
// when it is JSON, so --claim shareLearning=false is the boolean false, else kept as a string),
// --alg (default HS256 for a secret; from the key type otherwise), --kid.
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
    'project-claim': { type: 'string', default: process.env.AUTH_PROJECT_CLAIM || 'projectId' },
    claim: { type: 'string', multiple: true, default: [] },
    ttl: { type: 'string', default: '24h' },
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
const ttl = parseTtl(values.ttl);
if (ttl === undefined) fail(`--ttl ${values.ttl}: give a lifetime such as 24h, 30m, 90s or 600 (seconds)`);
const claims = Object.fromEntries(values.claim.map(parseClaim));

/** `24h`, `30m`, `90s`, `2d` or whole seconds → seconds; undefined when it is none of them. */
function parseTtl(text) {
  const match = /^(\d+)([smhd]?)$/.exec(text.trim());
  if (match === null) return undefined;
  const seconds = Number(match[1]) * { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2]];
  return seconds > 0 && Number.isSafeInteger(seconds) ? seconds : undefined;
}

/** `key=value` → [key, value], the value JSON-parsed when it is JSON (false, 3, "x", [1]) and a string otherwise. */
function parseClaim(text) {
  const at = text.indexOf('=');
  if (at <= 0) fail(`--claim ${text}: give key=value (the project claim's name is --project-claim)`);
  const key = text.slice(0, at);
  const raw = text.slice(at + 1);
  try {
    return [key, JSON.parse(raw)];
  } catch {
    return [key, raw];
  }
}

// Without a secret or a key: the development server's key (src/auth/development-key.ts keeps it in this
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
// --claim first: the project, times, issuer and audience are the token's own and win.
const payload = {
  sub: 'mint-token',
  ...claims,
  [values['project-claim']]: values.project,
  iat: now,
  exp: now + ttl,
  ...(values.issuer ? { iss: values.issuer } : {}),
  ...(values.audience ? { aud: values.audience } : {}),
};
const header = { alg, typ: 'JWT', ...(values.kid ? { kid: values.kid } : {}) };
const encode = (part) => Buffer.from(JSON.stringify(part)).toString('base64url');
const unsigned = `${encode(header)}.${encode(payload)}`;
process.stdout.write(`${unsigned}.${signer(unsigned).toString('base64url')}\n`);
