import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { MAX_LISTED_PROBLEMS } from '@catalog-search/core';

/**
 * Request validation with TypeBox's compiled checks (markedly faster than Fastify's default ajv on
 * a 1,000-tool list), as @fastify/type-provider-typebox's TypeBoxValidatorCompiler does, except that
 * it stops after the MAX_LISTED_PROBLEMS errors the answer lists. That compiler collects every error
 * first: a body of millions of wrong values made as many error objects, seconds of CPU and hundreds of
 * MB for one 400 (docs/performance.md#validation-errors).
 */
export const boundedValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = TypeCompiler.Compile(schema);
  return (value: unknown) => {
    const converted = httpPart === 'body' ? value : Value.Convert(schema, value);
    if (check.Check(converted)) return { value: converted };
    const errors: FastifySchemaValidationError[] = [];
    for (const error of check.Errors(converted)) {
      errors.push({ keyword: 'typebox', instancePath: error.path, schemaPath: '', params: {}, message: error.message });
      if (errors.length === MAX_LISTED_PROBLEMS) break;
    }
    return { error: errors };
  };
};
