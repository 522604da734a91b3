import { SearchEnvelopeSchema } from '@catalog-search/core';
import { describe, expect, it } from 'vitest';
import { boundedValidatorCompiler } from '../../src/http/schema-validator.js';
import { testConfig } from '../helpers/app.js';
import { buildApp } from '../../src/app.js';

describe('request validation', () => {
  it('collects at most 20 errors however many the body has (TypeBoxValidatorCompiler collected all: +659 MB for a 4 MB body)', () => {
    const validate = boundedValidatorCompiler({
      schema: SearchEnvelopeSchema,
      method: 'POST',
      url: '/v1/catalog/search',
      httpPart: 'body',
    });
    const result = validate({ query: Array.from({ length: 100_000 }, () => 1) }) as {
      error: { instancePath: string; message: string }[];
    };
    expect(result.error).toHaveLength(20);
    expect(result.error[0]).toMatchObject({ instancePath: '/query' });
    expect(validate({ query: ['read a file'], maxResults: 5 })).toEqual({
      value: { query: ['read a file'], maxResults: 5 },
    });
  });

  it('is the validator of the app', async () => {
    const app = buildApp(testConfig());
    expect(app.validatorCompiler).toBe(boundedValidatorCompiler);
    await app.close();
  });
});
