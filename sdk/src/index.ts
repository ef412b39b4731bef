/**
 * The typed client of the billing API. Every operation of `/api/v1/openapi.json` is a function
 * named by its operationId (generated in ./gen by `npm run sdk`); pass it a client made by
 * createApiKeyClient (Node) or createSessionClient (the dashboard in a browser).
 */
export * from './gen/index.js';
export { createClient, createConfig, type Client, type Config, type RequestResult } from './gen/client/index.js';
export { BillingApiError, createApiKeyClient, createSessionClient, CSRF_HEADER, TENANT_HEADER, type ApiKeyClientOptions, type SessionClientOptions } from './client.js';
