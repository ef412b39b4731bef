import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, ErrorBody, errorResponses, examplePage, listResponse, PageQuery } from '../../http/schemas.js';
import { booleanFeatureExample, meteredFeatureExample } from './examples.js';
import type { FeaturesService } from './service.js';
import { CreateFeatureRequest, Feature, featureToWire, SetEntitlementRequest, UpdateFeatureRequest } from './schemas.js';
import { FEATURE_STATUSES } from './values.js';

const FeatureParams = Type.Object({ id_or_code: Type.String({ description: 'Feature ID or code' }) });

const VALUE_RULES =
  'A value is `{type?, enabled}` for a BOOLEAN feature (`enabled` required) and `{type?, enabled, limit, reset_period}` for a METERED one: `enabled` defaults to true, ' +
  '`limit` is a decimal string >= 0 such as "10000" (null or absent = unlimited), `reset_period` is `BILLING_CYCLE`, `NEVER` (the default), or ' +
  '`CALENDAR`, `FIXED_WINDOW` or `SLIDING_WINDOW` with `unit` (HOUR, DAY, WEEK, MONTH, YEAR) and `interval` (1 to 10000). `type`, when given, must be the feature\'s type.';

/** What each status move does; ARCHIVED features must be unarchived before they are enabled or disabled. */
const MOVES = {
  archive: {
    summary: 'Archive a feature',
    description:
      'Moves the feature to ARCHIVED: it leaves every effective entitlement, and plans, add-ons and subscription overrides can no longer grant it (400); grants already stored are kept. ' +
      'Archiving an archived feature returns it unchanged.',
    status: 'ARCHIVED' as const,
  },
  unarchive: {
    summary: 'Unarchive a feature',
    description: 'Moves an ARCHIVED feature back to ACTIVE. A feature that is not archived is returned unchanged.',
    status: 'ACTIVE' as const,
  },
  enable: {
    summary: 'Enable a feature',
    description: 'Moves a DISABLED feature back to ACTIVE; an ACTIVE one is returned unchanged. An ARCHIVED feature is a 409: unarchive it first.',
    status: 'ACTIVE' as const,
  },
  disable: {
    summary: 'Disable a feature',
    description:
      'Moves the feature to DISABLED: it is switched off for every customer (left out of effective entitlements) while its grants are kept, so enabling it restores them. ' +
      'A DISABLED feature is returned unchanged; an ARCHIVED one is a 409: unarchive it first.',
    status: 'DISABLED' as const,
  },
};

export function featureRoutes(service: FeaturesService) {
  return (app: App) => {
    const tags = ['Features'];
    app.get('/api/v1/features', {
      schema: {
        tags,
        operationId: 'list_features',
        summary: 'List features',
        description:
          'Lists the tenant\'s features by name A to Z. Filters: `statuses` (repeat the parameter for several; all statuses when absent), `product_id` and `search` ' +
          '(part of the name, case-insensitive). Paged: `page` from 0, `per_page` 1 to 100 (default 10).',
        querystring: Type.Object({
          statuses: Type.Optional(Type.Array(Type.Enum(FEATURE_STATUSES), { description: 'Filter by status; repeat the parameter for several' })),
          product_id: Type.Optional(Type.String({ description: 'Filter by product' })),
          search: Type.Optional(Type.String({ description: 'Search by feature name' })),
          ...PageQuery,
        }),
        response: { 200: documented(listResponse(Feature), 'A page of features.', examplePage([meteredFeatureExample, booleanFeatureExample])), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.list(authOf(request).tenantId, request.query);
      return { data: page.data.map(featureToWire), pagination_meta: page.pagination_meta };
    });

    app.post('/api/v1/features', {
      schema: {
        tags,
        operationId: 'create_feature',
        summary: 'Create a feature',
        description:
          'Creates a feature, ACTIVE: something plans, add-ons and subscriptions grant. `code` is 1 to 128 lower-case letters, digits, `-` or `_`, starting with a letter or digit, ' +
          'unique in the tenant (a taken code is a 409) and fixed for good. `name` is 1 to 255 characters. `feature_type` is `{type: BOOLEAN}` (on or off) or ' +
          '`{type: METERED, metric_id}` (a usage allowance counted by a billable metric of the tenant that is not archived). `product_id`, if given, must be a product of the tenant. ' +
          `\`entitlement.value\`, if given, is the feature-level default, the lowest-priority grant. ${VALUE_RULES}`,
        body: documented(CreateFeatureRequest, 'The feature to create.', {
          code: 'api-calls',
          name: 'API calls',
          feature_type: { type: 'METERED', metric_id: 'bm_01KKRNW4G0H1V3T9GFT3902B3Z' },
          entitlement: { value: { limit: '10000', reset_period: { type: 'BILLING_CYCLE' } } },
        }),
        response: {
          201: documented(Feature, 'The new feature.', meteredFeatureExample),
          ...errorResponses([400, 401]),
          409: documented(ErrorBody, 'The code is taken, or the Idempotency-Key was used with another request.', { code: 'CONFLICT', message: "code 'api-calls' is already used by another feature" }),
        },
      },
    }, async (request, reply) => reply.status(201).send(featureToWire(await service.create(authOf(request).tenantId, request.body))));

    app.get('/api/v1/features/:id_or_code', {
      schema: {
        tags,
        operationId: 'get_feature',
        summary: 'Get a feature',
        description: 'Returns the feature with this id, or else the one with this code, whatever its status.',
        params: FeatureParams,
        response: { 200: documented(Feature, 'The feature.', booleanFeatureExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => featureToWire(await service.get(authOf(request).tenantId, request.params.id_or_code)));

    app.patch('/api/v1/features/:id_or_code', {
      schema: {
        tags,
        operationId: 'update_feature',
        summary: 'Update a feature',
        description:
          'Only name and description change; code, feature_type and product are immutable (400). Any other field is a 400 too. `name` must not be blank; ' +
          '`description: null` clears it. The status does not change here: use archive, unarchive, enable and disable.',
        params: FeatureParams,
        body: documented(UpdateFeatureRequest, 'The fields to change.', { name: 'Single sign-on (SAML, OIDC)', description: null }),
        // The spec documents four error responses for this operation.
        response: {
          200: documented(Feature, 'The feature as changed.', { ...booleanFeatureExample, name: 'Single sign-on (SAML, OIDC)', description: null }),
          ...errorResponses([400, 401, 404, 429]),
        },
      },
    }, async (request) =>
      featureToWire(await service.update(authOf(request).tenantId, request.params.id_or_code, request.body as Record<string, unknown>)));

    for (const action of ['archive', 'unarchive', 'enable', 'disable'] as const) {
      app.post(`/api/v1/features/:id_or_code/${action}`, {
        schema: {
          tags,
          operationId: `${action}_feature`,
          summary: MOVES[action].summary,
          description: MOVES[action].description,
          params: FeatureParams,
          response: {
            200: documented(Feature, `The feature, now ${MOVES[action].status}.`, { ...booleanFeatureExample, status: MOVES[action].status }),
            ...errorResponses([401, 404, 409]),
            ...(action === 'enable' || action === 'disable'
              ? { 409: documented(ErrorBody, 'The feature is archived, or the Idempotency-Key was used with another request.', { code: 'CONFLICT', message: 'feature is archived; unarchive it first' }) }
              : {}),
          },
        },
      }, async (request) => featureToWire(await service[action](authOf(request).tenantId, request.params.id_or_code)));
    }

    app.put('/api/v1/features/:id_or_code/entitlement', {
      schema: {
        tags,
        operationId: 'set_feature_entitlement',
        summary: 'Set the feature\'s default entitlement',
        description:
          'Sets the feature-level (default, lowest-priority) entitlement. It creates the default or replaces it (the entitlement keeps its id). ' +
          'It applies to every customer with a serving subscription whose plan, add-ons and subscription overrides say nothing about the feature. ' +
          VALUE_RULES,
        params: FeatureParams,
        body: documented(SetEntitlementRequest, 'The default value.', { value: { type: 'METERED', limit: '10000', reset_period: { type: 'BILLING_CYCLE' } } }),
        response: { 200: documented(Feature, 'The feature with its default entitlement.', meteredFeatureExample), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => featureToWire(await service.setDefaultEntitlement(authOf(request).tenantId, request.params.id_or_code, request.body.value)));

    app.delete('/api/v1/features/:id_or_code/entitlement', {
      schema: {
        tags,
        operationId: 'remove_feature_entitlement',
        summary: 'Remove the feature\'s default entitlement',
        description:
          'Removes the feature-level default: customers then get the feature only from their plan, add-ons or subscription overrides. Removing an absent default returns the feature unchanged.',
        params: FeatureParams,
        response: { 200: documented(Feature, 'The feature without a default entitlement.', { ...meteredFeatureExample, entitlement: null }), ...errorResponses([401, 404]) },
      },
    }, async (request) => featureToWire(await service.removeDefaultEntitlement(authOf(request).tenantId, request.params.id_or_code)));
  };
}
