import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { errorResponses, PageQuery, PaginationMeta } from '../../http/schemas.js';
import type { CheckoutService } from './service.js';
import { CHECKOUT_STATUSES, CheckoutSession, CompleteCheckoutSessionRequest, CreateCheckoutSessionRequest, SessionResponse, sessionToWire } from './schemas.js';

const IdParams = Type.Object({ id: Type.String({ description: 'Checkout session ID' }) });

export function checkoutRoutes(service: CheckoutService) {
  return (app: App) => {
    const tags = ['Checkout sessions'];

    app.get('/api/v1/checkout-sessions', {
      schema: {
        tags,
        operationId: 'list_checkout_sessions',
        querystring: Type.Object({
          customer_id: Type.Optional(Type.String({ description: 'Customer ID or alias' })),
          status: Type.Optional(Type.Enum(CHECKOUT_STATUSES)),
          ...PageQuery,
        }),
        // `sessions` is the reference's key; newest first.
        response: { 200: Type.Object({ sessions: Type.Array(CheckoutSession), pagination_meta: PaginationMeta }), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.listSessions(authOf(request).tenantId, request.query);
      return { sessions: page.data.map(sessionToWire), pagination_meta: page.pagination_meta };
    });

    // 200 as in the reference (not 201).
    app.post('/api/v1/checkout-sessions', {
      schema: { tags, operationId: 'create_checkout_session', body: CreateCheckoutSessionRequest, response: { 200: SessionResponse, ...errorResponses([400, 401]) } },
    }, async (request) => ({ session: sessionToWire(await service.createSession(authOf(request).tenantId, request.body)) }));

    app.get('/api/v1/checkout-sessions/:id', {
      schema: { tags, operationId: 'get_checkout_session', params: IdParams, response: { 200: SessionResponse, ...errorResponses([401, 404]) } },
    }, async (request) => ({ session: sessionToWire(await service.getSession(authOf(request).tenantId, request.params.id)) }));

    app.post('/api/v1/checkout-sessions/:id/cancel', {
      schema: { tags, operationId: 'cancel_checkout_session', params: IdParams, response: { 200: SessionResponse, ...errorResponses([400, 401, 404, 429, 500]) } },
    }, async (request) => ({ session: sessionToWire(await service.cancelSession(authOf(request).tenantId, request.params.id)) }));

    app.post('/api/v1/checkout-sessions/:id/complete', {
      schema: {
        tags,
        operationId: 'complete_checkout_session',
        description: 'Records the payment of a session and creates its subscription, exactly once. Retrying a completed session answers it unchanged.',
        params: IdParams,
        body: CompleteCheckoutSessionRequest,
        response: { 200: SessionResponse, ...errorResponses([400, 401, 404, 409]) },
      },
      // The body is optional: a POST without one means "payment settled".
      preValidation: async (request) => {
        request.body ??= {};
      },
    }, async (request) => ({ session: sessionToWire(await service.completeSession(authOf(request).tenantId, request.params.id, request.body)) }));
  };
}
