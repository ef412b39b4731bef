import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, errorResponses, iso, Nullable } from '../../http/schemas.js';
import { EntitlementSchema, EntitlementValueSchema, ResetPeriodSchema } from '../features/index.js';
import { ENTITLEMENT_SOURCES } from './service.js';
import { effectiveEntitlementExamples, overrideExample, overrideValueExample } from './examples.js';
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
const OverrideParams = Type.Object({ subscription_id: Type.String({ description: 'Subscription ID' }), feature_id: Type.String({ description: 'Feature ID or code' }) });

/** How effective values are resolved (resolve.ts), shared by the customer and the subscription views. */
const RESOLUTION =
  'For each ACTIVE feature (disabled and archived ones are left out), in feature code order, the value comes from the highest level that sets it: the customer\'s own overrides, then the subscription\'s own overrides, ' +
  'then its add-ons in force today, then its plan version (during a trial with a trialing plan, that plan\'s), then the feature\'s default; a higher level can also switch a feature off. ' +
  'Values on one level combine to the most generous (enabled if any is, the highest limit, null = unlimited). A METERED value gives its `spec` and its `usage`: ' +
  '`consumed` in the current reset window (a decimal string; null when unknown), `remaining` = limit - consumed, never below 0 (null when unlimited), and `reset_at` ' +
  '(null when the window never resets or slides). Subscription statuses are first brought up to date with the clock.';

const CustomerFeatureParams = Type.Object({ id_or_alias: Type.String({ description: 'Customer ID or alias' }), feature_code: Type.String({ description: 'Feature code or ID' }) });
const Decimal = (description: string) => Nullable(Type.String({ description }));
const EntitlementCheck = Type.Object({
  customer_id: Type.String(),
  feature: Type.Object({ id: Type.String(), code: Type.String(), name: Type.String() }),
  type: Type.Enum(['BOOLEAN', 'METERED']),
  allowed: Type.Boolean({ description: 'whether the customer may use the feature now (one more unit of a metered one)' }),
  reason: Type.Enum(['NOT_ENTITLED', 'DISABLED', 'WITHIN_LIMIT', 'UNLIMITED', 'LIMIT_REACHED', 'OVERAGE_ALLOWED']),
  source: Nullable(Type.Enum([...ENTITLEMENT_SOURCES], { description: 'the level the value came from' })),
  enabled: Type.Boolean(),
  metric_id: Nullable(Type.String()),
  used: Decimal('usage in the current window, the figure invoicing bills; null when not metered'),
  limit: Decimal('null = unlimited'),
  remaining: Decimal('limit - used, at least 0; null when unlimited'),
  overage: Decimal('used - limit when over it (billed under ALLOW_AND_BILL), else "0"; null when unlimited'),
  overage_policy: Nullable(Type.Enum(['BLOCK', 'ALLOW_AND_BILL'])),
  period_start: Nullable(Type.String({ format: 'date-time' })),
  reset_at: Nullable(Type.String({ format: 'date-time' })),
});
const checkExample = {
  customer_id: 'cus_01KKRNW4G07K3VXVBQS2VF8J0E',
  feature: { id: 'feat_01KKRNW4G0Q841X0CQ0K68EGW9', code: 'api-calls', name: 'API calls' },
  type: 'METERED' as const,
  allowed: false,
  reason: 'LIMIT_REACHED' as const,
  source: 'PLAN_VERSION' as const,
  enabled: true,
  metric_id: 'bm_01KKRNW4G0H1V3T9GFT3902B3Z',
  used: '10000',
  limit: '10000',
  remaining: '0',
  overage: '0',
  overage_policy: 'BLOCK' as const,
  period_start: '2026-03-01T00:00:00.000Z',
  reset_at: '2026-04-01T00:00:00.000Z',
};
const customerOverrideExample = { ...overrideExample, value: { ...overrideValueExample, overage_policy: 'ALLOW_AND_BILL' as const } };

export function entitlementRoutes(service: EntitlementsService) {
  return (app: App) => {
    app.get('/api/v1/customers/:id_or_alias/entitlements/:feature_code', {
      schema: {
        tags: ['Customers', 'Entitlements'],
        operationId: 'check_customer_entitlement',
        summary: 'Check one entitlement of a customer',
        description:
          'Answers whether the customer may use the feature now. BOOLEAN: `allowed` is the value\'s `enabled`. METERED: `used` is the usage of the feature\'s metric in the current ' +
          'reset window (for BILLING_CYCLE the billing period, read as invoicing reads it, from the hourly rollups and the events since), `remaining` = limit - used. ' +
          'Below the limit it is allowed; at or over it, `overage_policy` BLOCK (the default) answers allowed false (reason LIMIT_REACHED) and ALLOW_AND_BILL answers allowed true ' +
          '(reason OVERAGE_ALLOWED; the overage is billed as usage). A feature the customer has no value for (no serving subscription, or nothing grants it) answers allowed false, ' +
          `reason NOT_ENTITLED. The value is resolved as in the customer's entitlement list, and \`source\` says which level gave it. ${RESOLUTION}`,
        params: CustomerFeatureParams,
        response: { 200: documented(EntitlementCheck, 'The check', checkExample), ...errorResponses([401, 404, 429]) },
      },
    }, async (request) => service.check(authOf(request).tenantId, request.params.id_or_alias, request.params.feature_code));

    app.put('/api/v1/customers/:id_or_alias/entitlements/:feature_code', {
      schema: {
        tags: ['Customers', 'Entitlements'],
        operationId: 'set_customer_entitlement',
        summary: 'Set a customer entitlement override',
        description:
          "Sets the customer's own value for a feature: the highest priority, above its subscriptions' overrides, add-ons, plan versions and the feature default, for all its " +
          'subscriptions. It creates the override or replaces it. The value is as for a subscription override, and a METERED one may set `overage_policy` (BLOCK or ALLOW_AND_BILL). ' +
          'An archived feature is a 400. Emits `customer.entitlements_updated`.',
        params: CustomerFeatureParams,
        body: documented(Type.Object({ value: EntitlementValueSchema }, { additionalProperties: false }), 'The override value.', { value: customerOverrideExample.value }),
        response: { 200: documented(EntitlementSchema, 'The override as stored.', customerOverrideExample), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => {
      const row = await service.setCustomerOverride(authOf(request).tenantId, request.params.id_or_alias, request.params.feature_code, request.body.value);
      return { id: row.id, feature_id: row.feature_id, value: row.value, created_at: iso(row.created_at), updated_at: iso(row.updated_at) };
    });

    app.delete('/api/v1/customers/:id_or_alias/entitlements/:feature_code', {
      schema: {
        tags: ['Customers', 'Entitlements'],
        operationId: 'remove_customer_entitlement',
        summary: 'Remove a customer entitlement override',
        description: "Removes the customer's own value for the feature: its subscriptions' values apply again. A 404 when the customer, the feature or the override does not exist. Emits `customer.entitlements_updated` with a null value.",
        params: CustomerFeatureParams,
        response: { 204: documented(Type.Null(), 'Removed; no body.'), ...errorResponses([401, 404]) },
      },
    }, async (request, reply) => {
      await service.removeCustomerOverride(authOf(request).tenantId, request.params.id_or_alias, request.params.feature_code);
      return reply.status(204).send(null);
    });

    app.get('/api/v1/customers/:id_or_alias/entitlements', {
      schema: {
        tags: ['Customers', 'Entitlements'],
        operationId: 'get_effective_entitlements',
        summary: 'List customer entitlements',
        description:
          'Returns what the customer may use now: the entitlements of its subscriptions that serve today (TRIAL_ACTIVE or ACTIVE), merged as one level each; ' +
          `an empty list when it has none. Usage windows follow the oldest of those subscriptions. ${RESOLUTION}`,
        params: Type.Object({ id_or_alias: Type.String({ description: 'Customer ID or alias' }) }),
        response: { 200: documented(EffectiveList, 'The customer\'s effective entitlements.', { data: effectiveEntitlementExamples }), ...errorResponses([401, 404, 429]) },
      },
    }, async (request) => ({ data: await service.forCustomer(authOf(request).tenantId, request.params.id_or_alias) }));

    app.get('/api/v1/subscriptions/:subscription_id/entitlements', {
      schema: {
        tags: ['Subscriptions', 'Entitlements'],
        operationId: 'list_subscription_entitlements',
        summary: 'List subscription entitlements',
        description: `Returns the effective entitlements of one subscription, whatever its status. ${RESOLUTION}`,
        params: SubscriptionParams,
        response: { 200: documented(EffectiveList, 'The subscription\'s effective entitlements.', { data: effectiveEntitlementExamples }), ...errorResponses([401, 404, 429]) },
      },
    }, async (request) => ({ data: await service.forSubscription(authOf(request).tenantId, request.params.subscription_id) }));

    app.put('/api/v1/subscriptions/:subscription_id/entitlements/:feature_id', {
      schema: {
        tags: ['Subscriptions', 'Entitlements'],
        operationId: 'set_subscription_entitlement',
        summary: 'Set a subscription entitlement override',
        description:
          "Sets this subscription's own value for a feature: the highest priority, above plan, add-ons and the feature default. It creates the override or replaces it. " +
          'The feature is named by id or code; an archived feature is a 400. The value is `{enabled}` for a BOOLEAN feature and `{enabled, limit, reset_period}` for a METERED one ' +
          '(`limit` a decimal string >= 0, null = unlimited; `reset_period` BILLING_CYCLE, NEVER by default, or CALENDAR, FIXED_WINDOW or SLIDING_WINDOW with `unit` and `interval`); ' +
          '`type`, when given, must be the feature\'s. Emits `subscription.entitlements_updated`.',
        params: OverrideParams,
        body: documented(Type.Object({ value: EntitlementValueSchema }, { additionalProperties: false }), 'The override value.', { value: overrideValueExample }),
        response: { 200: documented(EntitlementSchema, 'The override as stored.', overrideExample), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => {
      const row = await service.setOverride(authOf(request).tenantId, request.params.subscription_id, request.params.feature_id, request.body.value);
      return { id: row.id, feature_id: row.feature_id, value: row.value, created_at: iso(row.created_at), updated_at: iso(row.updated_at) };
    });

    app.delete('/api/v1/subscriptions/:subscription_id/entitlements/:feature_id', {
      schema: {
        tags: ['Subscriptions', 'Entitlements'],
        operationId: 'remove_subscription_entitlement',
        summary: 'Remove a subscription entitlement override',
        description:
          'Removes the subscription\'s own value for the feature (named by id or code): the add-ons, plan and feature default apply again. ' +
          'A 404 when the subscription, the feature or the override does not exist. Emits `subscription.entitlements_updated` with a null value.',
        params: OverrideParams,
        response: { 204: documented(Type.Null(), 'Removed; no body.'), ...errorResponses([401, 404]) },
      },
    }, async (request, reply) => {
      await service.removeOverride(authOf(request).tenantId, request.params.subscription_id, request.params.feature_id);
      return reply.status(204).send(null);
    });
  };
}
