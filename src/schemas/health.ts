// Route schemas (documentation + a schema per status) of the probes; they need no token.
import { Type } from '@sinclair/typebox';
import { COMMON_RESPONSE_HEADERS, problemResponse } from './responses.js';

const StatusSchema = Type.Object({ status: Type.String() }, { $id: 'HealthStatus', additionalProperties: false });

export function livenessRouteSchema() {
  return {
    operationId: 'getLiveness',
    tags: ['Health'],
    summary: 'Liveness probe',
    description:
      'Answers 200 while the process serves HTTP. It checks nothing else (not the LLM, not the key set), so a ' +
      'failing dependency never gets healthy pods restarted. Use it as the Kubernetes liveness probe.',
    security: [],
    response: {
      200: {
        description: 'The process is alive.',
        headers: COMMON_RESPONSE_HEADERS,
        content: { 'application/json': { schema: StatusSchema, examples: { ok: { value: { status: 'ok' } } } } },
      },
    },
  };
}

export function readinessRouteSchema() {
  return {
    operationId: 'getReadiness',
    tags: ['Health'],
    summary: 'Readiness probe',
    description:
      'Answers 200 when the instance should receive traffic and 503 from the moment it starts shutting down ' +
      '(SIGTERM), so load balancers drain it before the listener closes. Use it as the Kubernetes readiness probe. ' +
      'With the embedded encoder (`EMBEDDINGS=on`) it also answers 503 (`STARTING`) after the start until the ' +
      "encoder's model has loaded in the background (seconds; longer on a busy host): meanwhile the service " +
      'answers searches by words (`meta.semantic: "pending"`) but ranks worse than a ready replica.',
    security: [],
    response: {
      200: {
        description: 'Ready for traffic.',
        headers: COMMON_RESPONSE_HEADERS,
        content: { 'application/json': { schema: StatusSchema, examples: { ready: { value: { status: 'ready' } } } } },
      },
      503: problemResponse({
        description: 'Shutting down, or still loading the embedded encoder: send traffic elsewhere.',
        examples: {
          shuttingDown: { summary: 'Draining', code: 'SHUTTING_DOWN', detail: 'The service is shutting down.' },
          starting: {
            summary: 'Loading the embedded encoder',
            code: 'STARTING',
            detail: 'Not ready yet: the embedded encoder (EMBEDDINGS=on) is loading its model.',
          },
        },
      }),
    },
  };
}
