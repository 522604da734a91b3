// The parts of openapi.yaml that no route declares: info, compatibility rules, security scheme, tags.
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { API_VERSION, API_VERSION_HEADER } from '../schemas/api-version.js';

const DESCRIPTION = `
Tool search for MCP routers. A router that aggregates many MCP servers exposes a \`tool_discovery\`
meta-tool; it calls \`POST /v1/catalog/search\` with the task and its whole Available Tool List, and
gets back the best tools with a calibrated relevance and an explanation each.

## Authentication

Every search carries a bearer JWT issued by the Router (see the \`bearerAuth\` scheme). The token's
project claim is the tenant boundary: caches and logs are per project, and nothing crosses projects.
The probes (\`/healthz\`, \`/readyz\`) need no token.

## Errors

Every error is an RFC 9457 \`application/problem+json\` body with \`type\`, \`title\`, \`status\`,
\`detail\`, a stable \`code\` (e.g. \`INVALID_REQUEST\`, \`TOO_MANY_TOOLS\`, \`RATE_LIMITED\`) and the
\`requestId\`. Invalid fields are listed in \`errors[]\` as JSON Pointers into the body. A 5xx never
carries internals. Branch on \`status\` and \`code\`, not on \`detail\` (its wording may change).

## Request ids

Send \`X-Request-Id\` to follow a request across your router and this service; it is echoed in the
\`X-Request-Id\` response header, in \`meta.requestId\` and in problem bodies. Without one the service
generates a UUID.

## Versioning and compatibility

This is version ${API_VERSION} of the API, served under \`/v1\`. Every response carries
\`${API_VERSION_HEADER}: ${API_VERSION}\`. \`POST /catalog/search\` is the unversioned path of the same
operation and stays supported for all of v${API_VERSION}.

Within v${API_VERSION} only **additive** changes are made:

- new **optional** request fields (omitting them keeps today's behaviour);
- new **response fields**, in any object: clients **must ignore fields they do not know**;
- new values of \`meta.degraded\` and new problem \`code\`s (clients must handle unknown ones by
  their HTTP status);
- new operations, headers and documentation.

Anything else — removing or renaming a field, changing a type, a default or the meaning of a value,
making an optional field required, tightening a limit below its documented default — is a breaking
change and ships as v${Number(API_VERSION) + 1} under a new path prefix, with v${API_VERSION} kept alongside it. A test
replays a recorded v${API_VERSION} request/response pair so that a breaking change fails the build.
`.trim();

const BEARER_DESCRIPTION = `
A JWT issued by the Router, sent as \`Authorization: Bearer <JWT>\`.

- **Key and algorithms**: verified with the deployment's key — an HMAC secret (\`AUTH_JWT_SECRET\`,
  HS256/384/512), a PEM public key (\`AUTH_JWT_PUBLIC_KEY\`, algorithms pinned to the key's type) or a
  JWKS URL (\`AUTH_JWKS_URL\`). \`alg: none\` is never accepted.
- **Claims**: \`exp\` is required; \`iss\` and \`aud\` are checked when \`AUTH_ISSUER\` /
  \`AUTH_AUDIENCE\` are set.
- **Project claim**: the claim named by \`AUTH_PROJECT_CLAIM\` (default \`projectId\`) must be a string;
  it names the tenant. A token without it is refused with 403. The empty string and
  \`UNASSIGNED_PROJECT_ID\` both name the **unassigned project**, the Router's scope for users
  without a project; it is a project of its own like any other and shares nothing with the others.
- \`shareLearning\`: the project's reports count in shared learning when the claim is absent or the
  JSON boolean \`true\`; any other value (\`false\`, \`"false"\`, \`0\`, \`null\`) keeps them its own.
- \`useSharedLearning\`: the project's searches use what other projects taught when the claim is absent
  or the JSON boolean \`true\`; any other value refuses it (the project's own learning still applies).
- \`X-Project-Id\`, when sent, must equal the project claim (403 otherwise).
`.trim();

export const OPENAPI_BASE: NonNullable<FastifyDynamicSwaggerOptions['openapi']> = {
  openapi: '3.1.0',
  info: {
    title: 'catalog-search API',
    version: API_VERSION,
    summary: 'Tool search for MCP routers: rank a tool list against a task.',
    description: DESCRIPTION,
    license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
  },
  // Generators need an absolute (or templated) URL; the default is a local `docker compose up`.
  servers: [
    {
      url: '{origin}',
      description: 'Your deployment',
      variables: {
        origin: { default: 'http://localhost:8080', description: 'Scheme, host and port of the deployment' },
      },
    },
  ],
  // Every operation needs the bearer token unless it says otherwise (the health probes do).
  security: [{ bearerAuth: [] }],
  tags: [
    { name: 'Search', description: "Rank a router's tool list against a task." },
    { name: 'Health', description: 'Probes for orchestrators and load balancers; no token needed.' },
  ],
  components: {
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: BEARER_DESCRIPTION },
    },
  },
};
