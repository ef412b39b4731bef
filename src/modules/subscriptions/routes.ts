import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { errorResponses, listResponse, orderByQuery, PageQuery } from '../../http/schemas.js';
import { SUBSCRIPTION_STATUSES } from './lifecycle.js';
import type { SubscriptionsService } from './service.js';
import {
  CancelSubscriptionRequest,
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
  };
}
