import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { errorResponses, listResponse, Nullable, orderByQuery, PageQuery } from '../../http/schemas.js';
import { SUBSCRIPTION_STATUSES } from './lifecycle.js';
import type { SubscriptionsService } from './service.js';
import {
  AddOnRequest,
  CancelSubscriptionRequest,
  PriceComponentsRequest,
  detailsToWire,
  Subscription,
  SubscriptionCreateRequest,
  SubscriptionDetails,
  subscriptionToWire,
  SubscriptionUpdateRequest,
} from './schemas.js';

const SubscriptionIdParams = Type.Object({ subscription_id: Type.String({ description: 'Subscription ID' }) });
const ORDER_COLUMNS = ['customer_name', 'plan_name', 'mrr', 'billing_start_date', 'end_date', 'status', 'created_at'];

export function subscriptionRoutes(service: SubscriptionsService) {
  return (app: App) => {
    const tags = ['Subscriptions'];

    app.get('/api/v1/subscriptions', {
      schema: {
        tags,
        operationId: 'list_subscriptions',
        querystring: Type.Object({
          customer_id: Type.Optional(Type.String({ description: 'Filter by customer ID or alias' })),
          plan_id: Type.Optional(Type.String()),
          statuses: Type.Optional(Type.Array(Type.Enum(SUBSCRIPTION_STATUSES))),
          order_by: orderByQuery(ORDER_COLUMNS, 'created_at.desc'),
          ...PageQuery,
        }),
        response: { 200: listResponse(Subscription), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.listSubscriptions(authOf(request).tenantId, request.query);
      return { data: page.data.map((s) => subscriptionToWire(s, service.today())), pagination_meta: page.pagination_meta };
    });

    app.post('/api/v1/subscriptions', {
      schema: { tags, operationId: 'create_subscription', body: SubscriptionCreateRequest, response: { 201: SubscriptionDetails, ...errorResponses([400, 401]) } },
    }, async (request, reply) => reply.status(201).send(detailsToWire(await service.createSubscription(authOf(request).tenantId, request.body))));

    app.get('/api/v1/subscriptions/:subscription_id', {
      schema: { tags, operationId: 'subscription_details', params: SubscriptionIdParams, response: { 200: SubscriptionDetails, ...errorResponses([401, 404]) } },
    }, async (request) => detailsToWire(await service.getSubscription(authOf(request).tenantId, request.params.subscription_id)));

    app.patch('/api/v1/subscriptions/:subscription_id', {
      schema: {
        tags,
        operationId: 'update_subscription',
        params: SubscriptionIdParams,
        body: SubscriptionUpdateRequest,
        response: { 200: Type.Object({ subscription: SubscriptionDetails }), ...errorResponses([400, 401, 404, 409]) },
      },
    }, async (request) => ({ subscription: detailsToWire(await service.updateSubscription(authOf(request).tenantId, request.params.subscription_id, request.body)) }));

    app.post('/api/v1/subscriptions/:subscription_id/cancel', {
      schema: {
        tags,
        operationId: 'cancel_subscription',
        params: SubscriptionIdParams,
        body: CancelSubscriptionRequest,
        response: { 200: Type.Object({ subscription: Subscription }), ...errorResponses([400, 401, 404, 409]) },
      },
    }, async (request) => ({
      subscription: subscriptionToWire(await service.cancelSubscription(authOf(request).tenantId, request.params.subscription_id, request.body), service.today()),
    }));
    // Changes after creation (ours; the reference has none of these operations).
    const AddOnParams = Type.Object({ subscription_id: Type.String(), subscription_add_on_id: Type.String({ description: 'The id of the add-on row on the subscription (add_ons[].id)' }) });
    const details = { 200: SubscriptionDetails, ...errorResponses([400, 401, 404, 409]) };

    app.post('/api/v1/subscriptions/:subscription_id/change-plan', {
      schema: {
        tags,
        operationId: 'change_subscription_plan',
        description: 'IMMEDIATE (default): from today, the invoice credits the unused part of the old fees and charges the new ones by day. END_OF_PERIOD: from the current period end.',
        params: SubscriptionIdParams,
        body: Type.Object({
          plan_id: Type.Optional(Type.String()),
          plan_version_id: Type.Optional(Type.String()),
          version: Type.Optional(Type.Integer({ minimum: 1 })),
          timing: Type.Optional(Type.Enum(['IMMEDIATE', 'END_OF_PERIOD'])),
          price_components: Type.Optional(Nullable(PriceComponentsRequest)),
        }, { additionalProperties: false }),
        response: details,
      },
    }, async (request) => detailsToWire(await service.changePlan(authOf(request).tenantId, request.params.subscription_id, request.body)));

    app.post('/api/v1/subscriptions/:subscription_id/slots', {
      schema: {
        tags,
        operationId: 'change_subscription_slots',
        description: 'More slots apply today (prorated by invoicing); fewer slots apply at the end of the current period.',
        params: SubscriptionIdParams,
        body: Type.Object({ price_component_id: Type.String(), slots: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
        response: details,
      },
    }, async (request) => detailsToWire(await service.changeSlots(authOf(request).tenantId, request.params.subscription_id, request.body)));

    app.post('/api/v1/subscriptions/:subscription_id/add-ons', {
      schema: { tags, operationId: 'add_subscription_add_on', description: 'Adds an add-on offered by the plan version, from today.', params: SubscriptionIdParams, body: AddOnRequest, response: details },
    }, async (request) => detailsToWire(await service.addAddOn(authOf(request).tenantId, request.params.subscription_id, request.body)));

    app.patch('/api/v1/subscriptions/:subscription_id/add-ons/:subscription_add_on_id', {
      schema: {
        tags,
        operationId: 'update_subscription_add_on',
        description: 'A higher quantity applies today; a lower one at the end of the current period (or today with immediately=true).',
        params: AddOnParams,
        body: Type.Object({ quantity: Type.Integer({ minimum: 1 }), immediately: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
        response: details,
      },
    }, async (request) => detailsToWire(await service.changeAddOn(authOf(request).tenantId, request.params.subscription_id, request.params.subscription_add_on_id, request.body)));

    app.delete('/api/v1/subscriptions/:subscription_id/add-ons/:subscription_add_on_id', {
      schema: {
        tags,
        operationId: 'remove_subscription_add_on',
        description: 'Removes the add-on at the end of the current period, or today with immediately=true.',
        params: AddOnParams,
        querystring: Type.Object({ immediately: Type.Optional(Type.Boolean()) }),
        response: details,
      },
    }, async (request) => detailsToWire(await service.changeAddOn(authOf(request).tenantId, request.params.subscription_id, request.params.subscription_add_on_id, { quantity: 0, immediately: request.query.immediately })));
  };
}
