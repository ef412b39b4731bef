import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { errorResponses, iso, Nullable } from '../../http/schemas.js';
import { EntitlementSchema, EntitlementValueSchema, ResetPeriodSchema } from '../features/index.js';
import type { EntitlementsService } from './service.js';

const FeatureRef = Type.Object({
  id: Type.String(),
  code: Type.String(),
  name: Type.String(),
  product: Nullable(Type.Object({ id: Type.String(), name: Type.String() })),
});
/** Reference EffectiveEntitlementValue: BOOLEAN {enabled} or METERED {spec, usage}, tagged by type. */
const EffectiveValue = Type.Object({
  type: Type.Enum(['BOOLEAN', 'METERED']),
  enabled: Type.Optional(Type.Boolean()),
  spec: Type.Optional(Type.Object({ enabled: Type.Boolean(), limit: Nullable(Type.String()), metric_id: Type.String(), reset_period: ResetPeriodSchema })),
  usage: Type.Optional(Type.Object({
    consumed: Nullable(Type.String({ description: 'usage in the current reset window; null when unknown' })),
    remaining: Nullable(Type.String({ description: 'limit - consumed, at least 0; null when unlimited or unknown' })),
    reset_at: Nullable(Type.String({ format: 'date-time' })),
  })),
});
const EffectiveList = Type.Object({ data: Type.Array(Type.Object({ feature: FeatureRef, value: EffectiveValue })) });
const SubscriptionParams = Type.Object({ subscription_id: Type.String({ description: 'Subscription ID' }) });
const OverrideParams = Type.Object({ subscription_id: Type.String(), feature_id: Type.String({ description: 'Feature ID or code' }) });

export function entitlementRoutes(service: EntitlementsService) {
  return (app: App) => {
    app.get('/api/v1/customers/:id_or_alias/entitlements', {
      schema: {
        tags: ['Customers'],
        operationId: 'get_effective_entitlements',
        params: Type.Object({ id_or_alias: Type.String({ description: 'Customer ID or alias' }) }),
        response: { 200: EffectiveList, ...errorResponses([401, 404, 429]) },
      },
    }, async (request) => ({ data: await service.forCustomer(authOf(request).tenantId, request.params.id_or_alias) }));

    app.get('/api/v1/subscriptions/:subscription_id/entitlements', {
      schema: { tags: ['Subscriptions'], operationId: 'list_subscription_entitlements', params: SubscriptionParams, response: { 200: EffectiveList, ...errorResponses([401, 404, 429]) } },
    }, async (request) => ({ data: await service.forSubscription(authOf(request).tenantId, request.params.subscription_id) }));

    app.put('/api/v1/subscriptions/:subscription_id/entitlements/:feature_id', {
      schema: {
        tags: ['Subscriptions'],
        operationId: 'set_subscription_entitlement',
        description: "Sets this subscription's own value for a feature: the highest priority, above plan, add-ons and the feature default.",
        params: OverrideParams,
        body: Type.Object({ value: EntitlementValueSchema }, { additionalProperties: false }),
        response: { 200: EntitlementSchema, ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => {
      const row = await service.setOverride(authOf(request).tenantId, request.params.subscription_id, request.params.feature_id, request.body.value);
      return { id: row.id, feature_id: row.feature_id, value: row.value, created_at: iso(row.created_at), updated_at: iso(row.updated_at) };
    });

    app.delete('/api/v1/subscriptions/:subscription_id/entitlements/:feature_id', {
      schema: { tags: ['Subscriptions'], operationId: 'remove_subscription_entitlement', params: OverrideParams, response: { 204: Type.Null(), ...errorResponses([401, 404]) } },
    }, async (request, reply) => {
      await service.removeOverride(authOf(request).tenantId, request.params.subscription_id, request.params.feature_id);
      return reply.status(204).send(null);
    });
  };
}
