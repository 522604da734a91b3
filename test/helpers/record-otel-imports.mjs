// `node --import` this file: every `@opentelemetry/*` import the process resolves is appended to the
// file named by RECORD_OTEL_IMPORTS (test/tracing/tracing.test.ts checks that tracing off loads none).
import { register } from 'node:module';

register('./otel-import-hook.mjs', import.meta.url, { data: { file: process.env.RECORD_OTEL_IMPORTS } });
