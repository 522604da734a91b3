/**
 * The API's major version. Within a major version only additive changes are made (see the
 * "Compatibility" section of openapi.yaml); anything else is a new major version under a new path
 * prefix (/v2/...).
 */
export const API_VERSION = '1';
export const API_VERSION_HEADER = 'API-Version';
