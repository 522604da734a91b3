import fastifyJwt, { type FastifyJWTOptions } from '@fastify/jwt';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { createJwksResolver, type DecodedToken } from '../auth/jwks-resolver.js';
import { projectFromClaims, shareLearningFromClaims, useSharedLearningFromClaims } from '../auth/project.js';
import type { AuthConfig } from '../config/index.js';
import { ProblemError } from '../http/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The tenant, from the verified token's project claim. Set by `authenticate`. */
    projectId: string;
    /**
     * Whether the project's reports count towards shared learning (LEARNING_SHARED): false when its
     * token carries `"shareLearning": false` (the router's per-project opt-out; docs/privacy.md).
     */
    shareLearning: boolean;
    /**
     * Whether the project's searches use other projects' learning (LEARNING_SHARED): false when its
     * token carries `"useSharedLearning": false` (a project that refuses what others taught).
     */
    useSharedLearning: boolean;
  }
  interface FastifyInstance {
    /** onRequest hook: verifies the bearer token and sets `request.projectId`, or answers 401/403. */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  }
}

interface AuthPluginOptions {
  auth: AuthConfig;
}

const REALM = 'Bearer realm="catalog-search"';

/**
 * Bearer-token authentication with @fastify/jwt (fast-jwt underneath). The accepted algorithms are
 * pinned to the configured key's type, so `alg: none` and an HS token signed with a public key are
 * rejected; `exp` is required; `iss`/`aud` are checked when configured.
 */
async function authPlugin(app: FastifyInstance, options: AuthPluginOptions): Promise<void> {
  const { auth } = options;
  const { key } = auth;

  let secret: FastifyJWTOptions['secret'];
  if (key.kind === 'secret') secret = key.secret;
  else if (key.kind === 'public-key') secret = { public: key.pem };
  else {
    const resolveKey = createJwksResolver({
      url: key.url,
      algorithms: key.algorithms,
      cacheTtlMs: key.cacheTtlMs,
      minRefetchMs: key.minRefetchMs,
      issuers: auth.issuers,
      clockToleranceMs: auth.clockToleranceMs,
    });
    secret = (_request: FastifyRequest, token: unknown) => resolveKey(token as DecodedToken);
  }

  await app.register(fastifyJwt, {
    secret,
    decode: { complete: true },
    verify: {
      algorithms: [...key.algorithms],
      // fast-jwt checks iss/aud only when present, so configured ones are also required.
      requiredClaims: [
        'exp',
        ...(auth.issuers.length > 0 ? ['iss'] : []),
        ...(auth.audiences.length > 0 ? ['aud'] : []),
      ],
      clockTolerance: auth.clockToleranceMs,
      ...(auth.issuers.length > 0 ? { allowedIss: [...auth.issuers] } : {}),
      ...(auth.audiences.length > 0 ? { allowedAud: [...auth.audiences] } : {}),
      // Routers reuse a token for many calls: cache verified tokens (never past their exp).
      cache: 10_000,
    },
    // Development tokens (server.ts) are HS256; nothing else is signed here.
    sign: { algorithm: 'HS256' },
  });

  app.decorateRequest('projectId', '');
  app.decorateRequest('shareLearning', true);
  app.decorateRequest('useSharedLearning', true);
  app.decorate('authenticate', async (request: FastifyRequest) => {
    let payload: unknown;
    try {
      payload = await request.jwtVerify();
    } catch (error) {
      throw authFailure(error);
    }
    const claims = (payload ?? {}) as Record<string, unknown>;
    request.projectId = projectFromClaims(claims, auth.projectClaim, request.headers['x-project-id']);
    // Absent or true shares; any other value opts out (shareLearningFromClaims).
    request.shareLearning = shareLearningFromClaims(claims);
    request.useSharedLearning = useSharedLearningFromClaims(claims);
    // Every later log line of this request names its project.
    request.log = request.log.child({ projectId: request.projectId });
  });
}

function authFailure(error: unknown): ProblemError {
  if (error instanceof ProblemError) return error;
  const code = (error as { code?: unknown }).code;
  if (code === 'FST_JWT_NO_AUTHORIZATION_IN_HEADER') {
    // RFC 6750 §3.1: no error code when the request carries no credentials at all.
    return new ProblemError('UNAUTHORIZED', 'Missing bearer token: send "Authorization: Bearer <JWT>".', {
      headers: { 'www-authenticate': REALM },
    });
  }
  if (code === 'FST_JWT_BAD_REQUEST') {
    return invalid('invalid_request', 'The Authorization header must be "Bearer <JWT>".');
  }
  if (code === 'FST_JWT_AUTHORIZATION_TOKEN_EXPIRED' || code === 'FAST_JWT_EXPIRED') {
    return invalid('invalid_token', 'The token has expired.');
  }
  // fast-jwt's messages name the failed check ("The token signature is invalid.") and never the token.
  const message = error instanceof Error && error.message.length < 200 ? error.message : 'The token is invalid.';
  return invalid('invalid_token', message.startsWith('The ') ? message : `The token is invalid: ${message}`);
}

function invalid(oauthError: 'invalid_token' | 'invalid_request', detail: string): ProblemError {
  return new ProblemError('UNAUTHORIZED', detail, {
    headers: {
      'www-authenticate': `${REALM}, error="${oauthError}", error_description="${detail.replaceAll('"', "'")}"`,
    },
  });
}

export default fp(authPlugin, { name: 'auth', fastify: '5.x' });
