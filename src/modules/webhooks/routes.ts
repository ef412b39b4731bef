import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { errorResponses, listResponse, orderByQuery, PageQuery } from '../../http/schemas.js';
import type { EndpointsService } from './endpoints-service.js';
import {
  CreateWebhookEndpointRequest,
  DELIVERY_STATUSES,
  deliveryToWire,
  endpointToWire,
  RotateSecretRequest,
  UpdateWebhookEndpointRequest,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from './schemas.js';

const EndpointParams = Type.Object({ endpoint_id: Type.String({ description: 'Webhook endpoint ID' }) });
const DeliveryParams = Type.Object({ endpoint_id: Type.String({ description: 'Webhook endpoint ID' }), delivery_id: Type.String({ description: 'Webhook delivery ID' }) });

export function webhookRoutes(service: EndpointsService) {
  return (app: App) => {
    const tags = ['Webhooks'];
    const base = '/api/v1/webhooks/endpoints';

    app.post(base, {
      schema: { tags, operationId: 'create_webhook_endpoint', body: CreateWebhookEndpointRequest, response: { 201: WebhookEndpointWithSecret, ...errorResponses([400, 401]) } },
    }, async (request, reply) => {
      const auth = authOf(request);
      const { endpoint, secret } = await service.create(auth.tenantId, auth.environment, request.body);
      return reply.status(201).send({ ...endpointToWire(endpoint), secret });
    });

    app.get(base, {
      schema: {
        tags,
        operationId: 'list_webhook_endpoints',
        querystring: Type.Object({ order_by: orderByQuery(['created_at'], 'created_at.desc'), ...PageQuery }),
        response: { 200: listResponse(WebhookEndpoint), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.list(authOf(request).tenantId, request.query);
      return { data: page.data.map(endpointToWire), pagination_meta: page.pagination_meta };
    });

    app.get(`${base}/:endpoint_id`, {
      schema: { tags, operationId: 'get_webhook_endpoint', params: EndpointParams, response: { 200: WebhookEndpoint, ...errorResponses([401, 404]) } },
    }, async (request) => endpointToWire(await service.get(authOf(request).tenantId, request.params.endpoint_id)));

    app.patch(`${base}/:endpoint_id`, {
      schema: { tags, operationId: 'update_webhook_endpoint', params: EndpointParams, body: UpdateWebhookEndpointRequest, response: { 200: WebhookEndpoint, ...errorResponses([400, 401, 404]) } },
    }, async (request) => {
      const auth = authOf(request);
      return endpointToWire(await service.update(auth.tenantId, auth.environment, request.params.endpoint_id, request.body));
    });

    app.delete(`${base}/:endpoint_id`, {
      schema: { tags, operationId: 'delete_webhook_endpoint', params: EndpointParams, response: { 204: Type.Null(), ...errorResponses([401, 404]) } },
    }, async (request, reply) => {
      await service.remove(authOf(request).tenantId, request.params.endpoint_id);
      return reply.status(204).send(null);
    });

    app.post(`${base}/:endpoint_id/rotate_secret`, {
      // the body is optional: no body means the default grace period
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags,
        operationId: 'rotate_webhook_endpoint_secret',
        params: EndpointParams,
        body: RotateSecretRequest,
        response: { 200: WebhookEndpointWithSecret, ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => {
      const { endpoint, secret } = await service.rotateSecret(authOf(request).tenantId, request.params.endpoint_id, request.body.grace_period_hours);
      return { ...endpointToWire(endpoint), secret };
    });

    app.post(`${base}/:endpoint_id/test`, {
      schema: { tags, operationId: 'send_webhook_test_event', params: EndpointParams, response: { 202: WebhookDelivery, ...errorResponses([401, 404, 409]) } },
    }, async (request, reply) => reply.status(202).send(deliveryToWire(await service.sendTestEvent(authOf(request).tenantId, request.params.endpoint_id), [])));

    app.get(`${base}/:endpoint_id/deliveries`, {
      schema: {
        tags,
        operationId: 'list_webhook_deliveries',
        params: EndpointParams,
        querystring: Type.Object({
          status: Type.Optional(Type.Enum(DELIVERY_STATUSES)),
          event_id: Type.Optional(Type.String()),
          order_by: orderByQuery(['created_at'], 'created_at.desc'),
          ...PageQuery,
        }),
        response: { 200: listResponse(WebhookDelivery), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => {
      const page = await service.listDeliveries(authOf(request).tenantId, request.params.endpoint_id, request.query);
      return { data: page.data.map((d) => deliveryToWire(d, page.attempts)), pagination_meta: page.pagination_meta };
    });

    app.get(`${base}/:endpoint_id/deliveries/:delivery_id`, {
      schema: { tags, operationId: 'get_webhook_delivery', params: DeliveryParams, response: { 200: WebhookDelivery, ...errorResponses([401, 404]) } },
    }, async (request) => {
      const { delivery, attempts } = await service.getDelivery(authOf(request).tenantId, request.params.endpoint_id, request.params.delivery_id);
      return deliveryToWire(delivery, attempts);
    });

    app.post(`${base}/:endpoint_id/deliveries/:delivery_id/redeliver`, {
      schema: { tags, operationId: 'redeliver_webhook_event', params: DeliveryParams, response: { 202: WebhookDelivery, ...errorResponses([401, 404, 409]) } },
    }, async (request, reply) => {
      const auth = authOf(request);
      return reply.status(202).send(deliveryToWire(await service.redeliver(auth.tenantId, request.params.endpoint_id, request.params.delivery_id), []));
    });
  };
}
