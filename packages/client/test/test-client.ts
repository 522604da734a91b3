import {
  createCatalogSearchClient,
  type CatalogSearchClient,
  type CatalogSearchClientOptions,
} from '@catalog-search/client';

/** A client of the service at `baseUrl` with a fixed token; `options` change any other setting. */
export function testClient(
  baseUrl: string,
  options: Omit<CatalogSearchClientOptions, 'baseUrl' | 'token' | 'getToken'> = {},
): CatalogSearchClient {
  return createCatalogSearchClient({ baseUrl, token: 't', ...options });
}
