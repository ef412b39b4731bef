import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, errorResponses, listResponse, orderByQuery, PageQuery } from '../../http/schemas.js';
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
import * as ex from './examples.js';

const EndpointId = Type.String({ description: 'Webhook endpoint ID', examples: [ex.ENDPOINT_ID] });
const EndpointParams = Type.Object({ endpoint_id: EndpointId });
const DeliveryParams = Type.Object({ endpoint_id: EndpointId, delivery_id: Type.String({ description: 'Webhook delivery ID', examples: [ex.DELIVERY_ID] }) });

/** What create and update check. */
const ENDPOINT_RULES =
  '`url`: http or https, no user:password; for production tenants, not a loopback, private, link-local, unspecified or multicast address (checked again before every ' +
  'attempt; sandbox tenants may use any address). `event_types`: known event kinds (400 naming `event_types[i]` otherwise), or null for every kind; an empty list is a 400. ' +
  'A disabled endpoint gets no new deliveries and its pending retries wait; enabling it again resumes them.';
/** How deliveries are made, said by the operations that show or queue them. */
const DELIVERY_RULES =
  'Each delivery is a signed POST (Standard Webhooks headers `webhook-id`, `webhook-timestamp`, `webhook-signature`) whose body is the event data plus `id`, `type` ' +
  'and `timestamp`. Any 2xx succeeds; otherwise it is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 20 h (ten attempts), then FAILED.';

export function webhookRoutes(service: EndpointsService) {
  return (app: App) => {
    const tags = ['Webhooks'];
    const base = '/api/v1/webhooks/endpoints';

    app.post(base, {
      schema: {
        tags,
        operationId: 'create_webhook_endpoint',
        summary: 'Create a webhook endpoint',
        description:
          'Registers a URL that receives the tenant\'s events (enabled unless `enabled: false`). The answer holds the signing `secret` (`whsec_...`), shown only here: ' +
          'verify every delivery with it. ' + ENDPOINT_RULES,
        body: documented(CreateWebhookEndpointRequest, 'The URL and the event kinds to send there', ex.createEndpointExample),
        response: { 201: documented(WebhookEndpointWithSecret, 'The endpoint with its signing secret (shown once)', ex.endpointWithSecretExample), ...errorResponses([400, 401, 409]) },
      },
    }, async (request, reply) => {
      const auth = authOf(request);
      const { endpoint, secret } = await service.create(auth.tenantId, auth.environment, request.body);
      return reply.status(201).send({ ...endpointToWire(endpoint), secret });
    });

    app.get(base, {
      schema: {
        tags,
        operationId: 'list_webhook_endpoints',
        summary: 'List webhook endpoints',
        description: 'The tenant\'s endpoints, newest first unless `order_by=created_at.asc`, never with their secrets. Paged with `page` (0-based) and `per_page` (1-100, default 10).',
        querystring: Type.Object({ order_by: orderByQuery(['created_at'], 'created_at.desc'), ...PageQuery }),
        response: { 200: documented(listResponse(WebhookEndpoint), 'One page of endpoints', { data: [ex.endpointExample], pagination_meta: { page: 0, per_page: 10, total_items: 1, total_pages: 1 } }), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.list(authOf(request).tenantId, request.query);
      return { data: page.data.map(endpointToWire), pagination_meta: page.pagination_meta };
    });

    app.get(`${base}/:endpoint_id`, {
      schema: {
        tags,
        operationId: 'get_webhook_endpoint',
        summary: 'Get a webhook endpoint',
        description: 'One endpoint, without its secret; `disabled_reason` says whether you disabled it (MANUAL) or we did after 5 days of failures (FAILING). Another tenant\'s endpoint is a 404.',
        params: EndpointParams,
        response: { 200: documented(WebhookEndpoint, 'The endpoint', ex.endpointExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => endpointToWire(await service.get(authOf(request).tenantId, request.params.endpoint_id)));

    app.patch(`${base}/:endpoint_id`, {
      schema: {
        tags,
        operationId: 'update_webhook_endpoint',
        summary: 'Update a webhook endpoint',
        description:
          'Changes the fields sent: `url`, `description`, `event_types`, `enabled`. Disabling sets `disabled_reason: MANUAL`; enabling again clears it and starts a fresh ' +
          'failure window. ' + ENDPOINT_RULES,
        params: EndpointParams,
        body: documented(UpdateWebhookEndpointRequest, 'The fields to change', ex.updateEndpointExample),
        response: { 200: documented(WebhookEndpoint, 'The updated endpoint', ex.updatedEndpointExample), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => {
      const auth = authOf(request);
      return endpointToWire(await service.update(auth.tenantId, auth.environment, request.params.endpoint_id, request.body));
    });

    app.delete(`${base}/:endpoint_id`, {
      schema: {
        tags,
        operationId: 'delete_webhook_endpoint',
        summary: 'Delete a webhook endpoint',
        description: 'Deletes the endpoint with its deliveries and their log; nothing more is sent to it. Another tenant\'s endpoint is a 404.',
        params: EndpointParams,
        response: { 204: Type.Null({ description: 'Deleted; no body' }), ...errorResponses([401, 404]) },
      },
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
        summary: 'Rotate the signing secret of a webhook endpoint',
        description:
          'Issues a new signing secret, shown only in this answer. The body is optional: during `grace_period_hours` (0-168, default 24) deliveries carry two signatures, ' +
          'one per secret, so receivers can switch without losing events; 0 stops the old secret at once. `previous_secret_expires_at` shows when the old one stops.',
        params: EndpointParams,
        body: documented(RotateSecretRequest, 'How long the old secret keeps signing', { grace_period_hours: 24 }),
        response: { 200: documented(WebhookEndpointWithSecret, 'The endpoint with its new secret (shown once)', ex.rotatedEndpointExample), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => {
      const { endpoint, secret } = await service.rotateSecret(authOf(request).tenantId, request.params.endpoint_id, request.body.grace_period_hours);
      return { ...endpointToWire(endpoint), secret };
    });

    app.post(`${base}/:endpoint_id/test`, {
      schema: {
        tags,
        operationId: 'send_webhook_test_event',
        summary: 'Send a test event to a webhook endpoint',
        description:
          'Queues a `webhook.test` event to this endpoint only (whatever its `event_types`), outside the per-object order, and answers the PENDING delivery (202); ' +
          'follow it in the delivery log. A disabled endpoint is a 409. ' + DELIVERY_RULES,
        params: EndpointParams,
        response: { 202: documented(WebhookDelivery, 'The queued test delivery', ex.testDeliveryExample), ...errorResponses([401, 404, 409]) },
      },
    }, async (request, reply) => reply.status(202).send(deliveryToWire(await service.sendTestEvent(authOf(request).tenantId, request.params.endpoint_id), [])));

    app.get(`${base}/:endpoint_id/deliveries`, {
      schema: {
        tags,
        operationId: 'list_webhook_deliveries',
        summary: 'List the deliveries of a webhook endpoint',
        description:
          'The delivery log of one endpoint, newest first unless `order_by=created_at.asc`, each delivery with every attempt (status code, duration, first 1000 characters ' +
          'of the answer, error). Filters: `status` (PENDING, SUCCEEDED, FAILED), `event_id`. Paged with `page` (0-based) and `per_page` (1-100, default 10). ' +
          'An unknown endpoint is a 404. ' + DELIVERY_RULES,
        params: EndpointParams,
        querystring: Type.Object({
          status: Type.Optional(Type.Enum(DELIVERY_STATUSES)),
          event_id: Type.Optional(Type.String()),
          order_by: orderByQuery(['created_at'], 'created_at.desc'),
          ...PageQuery,
        }),
        response: { 200: documented(listResponse(WebhookDelivery), 'One page of deliveries with their attempts', ex.deliveryListExample), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => {
      const page = await service.listDeliveries(authOf(request).tenantId, request.params.endpoint_id, request.query);
      return { data: page.data.map((d) => deliveryToWire(d, page.attempts)), pagination_meta: page.pagination_meta };
    });

    app.get(`${base}/:endpoint_id/deliveries/:delivery_id`, {
      schema: {
        tags,
        operationId: 'get_webhook_delivery',
        summary: 'Get a webhook delivery',
        description: 'One delivery with the body sent and every attempt. A delivery of another endpoint, or an unknown endpoint, is a 404. ' + DELIVERY_RULES,
        params: DeliveryParams,
        response: { 200: documented(WebhookDelivery, 'The delivery with its attempts', ex.deliveryExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => {
      const { delivery, attempts } = await service.getDelivery(authOf(request).tenantId, request.params.endpoint_id, request.params.delivery_id);
      return deliveryToWire(delivery, attempts);
    });

    app.post(`${base}/:endpoint_id/deliveries/:delivery_id/redeliver`, {
      schema: {
        tags,
        operationId: 'redeliver_webhook_event',
        summary: 'Send a delivered event again',
        description:
          'Queues the delivery\'s event again as a new delivery (trigger REDELIVERY) with the same event id and body, so a receiver that already processed it can recognise ' +
          'the duplicate; it is not held back by the per-object order. Works whatever the first delivery\'s status. A disabled endpoint is a 409. ' + DELIVERY_RULES,
        params: DeliveryParams,
        response: { 202: documented(WebhookDelivery, 'The new, queued delivery', ex.redeliveryExample), ...errorResponses([401, 404, 409]) },
      },
    }, async (request, reply) => {
      const auth = authOf(request);
      return reply.status(202).send(deliveryToWire(await service.redeliver(auth.tenantId, request.params.endpoint_id, request.params.delivery_id), []));
    });
  };
}
