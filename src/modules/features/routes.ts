import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { errorResponses, listResponse, PageQuery } from '../../http/schemas.js';
import type { FeaturesService } from './service.js';
import { CreateFeatureRequest, Feature, featureToWire, SetEntitlementRequest, UpdateFeatureRequest } from './schemas.js';
import { FEATURE_STATUSES } from './values.js';

const FeatureParams = Type.Object({ id_or_code: Type.String({ description: 'Feature ID or code' }) });

export function featureRoutes(service: FeaturesService) {
  return (app: App) => {
    const tags = ['Features'];
    app.get('/api/v1/features', {
      schema: {
        tags,
        operationId: 'list_features',
        querystring: Type.Object({
          statuses: Type.Optional(Type.Array(Type.Enum(FEATURE_STATUSES), { description: 'Filter by status; repeat the parameter for several' })),
          product_id: Type.Optional(Type.String({ description: 'Filter by product' })),
          search: Type.Optional(Type.String({ description: 'Search by feature name' })),
          ...PageQuery,
        }),
        response: { 200: listResponse(Feature), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.list(authOf(request).tenantId, request.query);
      return { data: page.data.map(featureToWire), pagination_meta: page.pagination_meta };
    });

    app.post('/api/v1/features', {
      schema: { tags, operationId: 'create_feature', body: CreateFeatureRequest, response: { 201: Feature, ...errorResponses([400, 401, 409]) } },
    }, async (request, reply) => reply.status(201).send(featureToWire(await service.create(authOf(request).tenantId, request.body))));

    app.get('/api/v1/features/:id_or_code', {
      schema: { tags, operationId: 'get_feature', params: FeatureParams, response: { 200: Feature, ...errorResponses([401, 404]) } },
    }, async (request) => featureToWire(await service.get(authOf(request).tenantId, request.params.id_or_code)));

    app.patch('/api/v1/features/:id_or_code', {
      schema: {
        tags,
        operationId: 'update_feature',
        description: 'Only name and description change; code, feature_type and product are immutable (400).',
        params: FeatureParams,
        body: UpdateFeatureRequest,
        // The spec documents four error responses for this operation.
        response: { 200: Feature, ...errorResponses([400, 401, 404, 429]) },
      },
    }, async (request) =>
      featureToWire(await service.update(authOf(request).tenantId, request.params.id_or_code, request.body as Record<string, unknown>)));

    for (const action of ['archive', 'unarchive', 'enable', 'disable'] as const) {
      app.post(`/api/v1/features/:id_or_code/${action}`, {
        schema: { tags, operationId: `${action}_feature`, params: FeatureParams, response: { 200: Feature, ...errorResponses([401, 404, 409]) } },
      }, async (request) => featureToWire(await service[action](authOf(request).tenantId, request.params.id_or_code)));
    }

    app.put('/api/v1/features/:id_or_code/entitlement', {
      schema: {
        tags,
        operationId: 'set_feature_entitlement',
        description: 'Sets the feature-level (default, lowest-priority) entitlement.',
        params: FeatureParams,
        body: SetEntitlementRequest,
        response: { 200: Feature, ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => featureToWire(await service.setDefaultEntitlement(authOf(request).tenantId, request.params.id_or_code, request.body.value)));

    app.delete('/api/v1/features/:id_or_code/entitlement', {
      schema: { tags, operationId: 'remove_feature_entitlement', params: FeatureParams, response: { 200: Feature, ...errorResponses([401, 404]) } },
    }, async (request) => featureToWire(await service.removeDefaultEntitlement(authOf(request).tenantId, request.params.id_or_code)));
  };
}
