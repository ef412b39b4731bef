import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { errorResponses } from '../../http/schemas.js';
import type { AccountsService } from './service.js';
import { ApiKey, apiKeyToWire, CreateApiKeyBody, CreatedApiKeySchema, createdApiKeyToWire, Tenant, TenantSettingsPatch, tenantToWire } from './schemas.js';

const tags = ['Tenant'];

export function accountsRoutes(service: AccountsService) {
  return (app: App) => {
    app.get('/api/v1/tenant', {
      schema: { tags, operationId: 'get_tenant', summary: 'The tenant of the calling key, with its settings', response: { 200: Tenant, ...errorResponses([401]) } },
    }, async (request) => tenantToWire(await service.getTenant(authOf(request).tenantId)));

    app.patch('/api/v1/tenant', {
      schema: { tags, operationId: 'update_tenant_settings', body: TenantSettingsPatch, response: { 200: Tenant, ...errorResponses([400, 401]) } },
    }, async (request) => tenantToWire(await service.updateTenantSettings(authOf(request).tenantId, request.body as { disable_emails?: boolean })));

    app.get('/api/v1/api-keys', {
      schema: { tags, operationId: 'list_api_keys', response: { 200: Type.Object({ data: Type.Array(ApiKey) }), ...errorResponses([401]) } },
    }, async (request) => ({ data: (await service.listApiKeys(authOf(request).tenantId)).map(apiKeyToWire) }));

    app.post('/api/v1/api-keys', {
      schema: { tags, operationId: 'create_api_key', body: CreateApiKeyBody, response: { 201: CreatedApiKeySchema, ...errorResponses([400, 401]) } },
    }, async (request, reply) => {
      const { name } = request.body as { name: string };
      return reply.status(201).send(createdApiKeyToWire(await service.createApiKey(authOf(request).tenantId, name)));
    });

    app.post('/api/v1/api-keys/:api_key_id/revoke', {
      schema: { tags, operationId: 'revoke_api_key', params: Type.Object({ api_key_id: Type.String() }), response: { 200: ApiKey, ...errorResponses([401, 404]) } },
    }, async (request) => {
      const { api_key_id } = request.params as { api_key_id: string };
      return apiKeyToWire(await service.revokeApiKey(authOf(request).tenantId, api_key_id));
    });
  };
}
