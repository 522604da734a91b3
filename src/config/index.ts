// The service's configuration: environment variables only, parsed once at start. The parts live in
// src/config/: `variables.ts` (the table of every variable: default, bounds, description),
// `env-reader.ts` (reads one variable by its table entry), `parse.ts` and `auth.ts` (the `Config`
// and the rules between variables), `types.ts` (its shape). Importers use this file only.
export { ConfigError, parseConfig, withDevelopmentKey } from './parse.js';
export { algorithmsForKey, ASYMMETRIC_ALGORITHMS, UNASSIGNED_PROJECT_ID } from './auth.js';
export type { Env } from './env-reader.js';
export type {
  AuthConfig,
  Config,
  EmbeddingsConfig,
  JwtAlgorithm,
  LlmConfig,
  RedisConfig,
  TracingConfig,
} from './types.js';
