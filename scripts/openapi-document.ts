import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config/index.js';
import { toYaml } from '../src/openapi/serialize.js';

/**
 * The configuration openapi.yaml is generated with: every setting at its default (so the limits the
 * document quotes are the defaults), plus a token key because the search routes need one. The key
 * never appears in the document.
 */
const SPEC_ENV = {
  NODE_ENV: 'production',
  AUTH_JWT_SECRET: 'openapi-generation-only-secret-0123456789',
  LOG_LEVEL: 'silent',
} as const;

/** Builds the real app (without listening) and returns the OpenAPI document its routes produce. */
export async function generateOpenApiDocument(): Promise<Record<string, unknown>> {
  const app = buildApp(parseConfig(SPEC_ENV));
  try {
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
  }
}

/** openapi.yaml's content, byte for byte. */
export async function generateOpenApiYaml(): Promise<string> {
  return toYaml(await generateOpenApiDocument());
}
