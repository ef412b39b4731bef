import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, errorResponses } from '../../http/schemas.js';
import { apiKeyExample, tenantExample } from './examples.js';
import type { AccountsService } from './service.js';
import { ApiKey, apiKeyToWire, CreateApiKeyBody, CreatedApiKeySchema, createdApiKeyToWire, Tenant, TenantSettingsPatch, tenantToWire } from './schemas.js';

const tags = ['Tenant'];
const createdKeyExample = { ...apiKeyExample, last_used_at: null, key: 'sk_sandbox_BrRYMT9FDm3YBsjp8aFQWZVrwq6cOU0H' };

export function accountsRoutes(service: AccountsService) {
  return (app: App) => {
    app.get('/api/v1/tenant', {
      schema: {
        tags,
        operationId: 'get_tenant',
        summary: 'Get the calling tenant',
        description:
          'Returns the tenant the bearer token acts for, with its settings. An organization has a `production` and a `sandbox` tenant; ' +
          'each holds its own data, and an API key belongs to exactly one of them (its prefix, `sk_prod_` or `sk_sandbox_`, says which).',
        response: { 200: documented(Tenant, 'The tenant of the calling key.', tenantExample), ...errorResponses([401]) },
      },
    }, async (request) => tenantToWire(await service.getTenant(authOf(request).tenantId)));

    app.patch('/api/v1/tenant', {
      schema: {
        tags,
        operationId: 'update_tenant_settings',
        summary: 'Update tenant settings',
        description:
          'Changes the settings given and leaves the others as they are; an empty body changes nothing. `disable_emails: true` stops e-mail to this ' +
          'tenant\'s customers (finalized invoices, payment receipts, credit notes), which suits a sandbox: each message is still logged, with status ' +
          '`SKIPPED` and skip_reason `EMAILS_DISABLED`, including messages queued before the switch. Webhooks are not affected.',
        body: documented(TenantSettingsPatch, 'The settings to change.', { disable_emails: true }),
        response: { 200: documented(Tenant, 'The tenant with its new settings.', { ...tenantExample, disable_emails: true }), ...errorResponses([400, 401]) },
      },
    }, async (request) => tenantToWire(await service.updateTenantSettings(authOf(request).tenantId, request.body as { disable_emails?: boolean })));

    app.get('/api/v1/api-keys', {
      schema: {
        tags,
        operationId: 'list_api_keys',
        summary: 'List API keys',
        description:
          'Lists every API key of the calling tenant, revoked ones included, oldest first (not paged). Only a hint of each key is shown: ' +
          'the secret is returned once, when the key is created, and stored as a hash. `last_used_at` is updated at most once a minute.',
        response: {
          200: documented(Type.Object({ data: Type.Array(ApiKey) }), 'The tenant\'s API keys.', {
            data: [{ ...apiKeyExample, id: 'key_01KKRNW4G033QP0Y3B12Z4WDQG', name: 'default', hint: 'sk_sandbox_11k5...O1wt' }, apiKeyExample],
          }),
          ...errorResponses([401]),
        },
      },
    }, async (request) => ({ data: (await service.listApiKeys(authOf(request).tenantId)).map(apiKeyToWire) }));

    app.post('/api/v1/api-keys', {
      schema: {
        tags,
        operationId: 'create_api_key',
        summary: 'Create an API key',
        description:
          'Creates a key for the calling tenant: `sk_prod_` or `sk_sandbox_` (after the tenant\'s environment) followed by 32 random characters. ' +
          'The response is the only time `key` is shown; store it in a secret manager. `name` (1 to 200 characters) is a label for people and need not be unique.',
        body: documented(CreateApiKeyBody, 'A label for the key.', { name: 'CI pipeline' }),
        response: { 201: documented(CreatedApiKeySchema, 'The new key, with its secret `key` (shown only here).', createdKeyExample), ...errorResponses([400, 401]) },
      },
    }, async (request, reply) => {
      const { name } = request.body as { name: string };
      return reply.status(201).send(createdApiKeyToWire(await service.createApiKey(authOf(request).tenantId, name)));
    });

    app.post('/api/v1/api-keys/:api_key_id/revoke', {
      schema: {
        tags,
        operationId: 'revoke_api_key',
        summary: 'Revoke an API key',
        description:
          'Revokes the key at once, in every server process: requests with it answer 401 from then on. Revoking is final; ' +
          'revoking a revoked key again changes nothing and returns it with its first `revoked_at`. A key may revoke itself.',
        params: Type.Object({ api_key_id: Type.String({ description: 'API key ID (`key_...`)' }) }),
        response: {
          200: documented(ApiKey, 'The revoked key.', { ...apiKeyExample, revoked_at: '2026-03-16T09:00:00.000Z' }),
          ...errorResponses([401, 404]),
        },
      },
    }, async (request) => {
      const { api_key_id } = request.params as { api_key_id: string };
      return apiKeyToWire(await service.revokeApiKey(authOf(request).tenantId, api_key_id));
    });
  };
}
