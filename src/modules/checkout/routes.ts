import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, errorResponses, PageQuery, PaginationMeta } from '../../http/schemas.js';
import type { CheckoutService } from './service.js';
import { CHECKOUT_STATUSES, CheckoutSession, CompleteCheckoutSessionRequest, CreateCheckoutSessionRequest, SessionResponse, sessionToWire } from './schemas.js';
import * as ex from './examples.js';

const IdParams = Type.Object({ id: Type.String({ description: 'Checkout session ID', examples: [ex.SESSION_ID] }) });

/** The status machine, said by the operations that move a session. */
const STATUSES =
  'CREATED -> COMPLETED (complete, payment settled) or AWAITING_PAYMENT (complete with `payment_status: PENDING`) -> COMPLETED; ' +
  'CREATED or AWAITING_PAYMENT -> CANCELLED (cancel); CREATED -> EXPIRED when `expires_at` passes (AWAITING_PAYMENT does not expire).';

export function checkoutRoutes(service: CheckoutService) {
  /** The session as answered, with its hosted page's URL built on this request's origin when PUBLIC_BASE_URL is unset. */
  const wire = (request: FastifyRequest, session: Parameters<typeof sessionToWire>[0]) =>
    sessionToWire(session, service.checkoutUrlOf(authOf(request).tenantId, session, `${request.protocol}://${request.host}`));

  return (app: App) => {
    const tags = ['Checkout sessions'];

    app.get('/api/v1/checkout-sessions', {
      schema: {
        tags,
        operationId: 'list_checkout_sessions',
        summary: 'List checkout sessions',
        description:
          'The tenant\'s checkout sessions, newest first, as `{sessions, pagination_meta}` (the reference\'s key). `customer_id` takes an id or an alias ' +
          '(an unknown customer lists nothing); `status` filters by one status (another value is a 400). Sessions past `expires_at` are moved to EXPIRED before the list is read. ' +
          'Paged with `page` (0-based) and `per_page` (1-100, default 10).',
        querystring: Type.Object({
          customer_id: Type.Optional(Type.String({ description: 'Customer ID or alias' })),
          status: Type.Optional(Type.Enum(CHECKOUT_STATUSES)),
          ...PageQuery,
        }),
        // `sessions` is the reference's key; newest first.
        response: {
          200: documented(Type.Object({ sessions: Type.Array(CheckoutSession), pagination_meta: PaginationMeta }), 'One page of checkout sessions', ex.sessionListExample),
          ...errorResponses([400, 401]),
        },
      },
    }, async (request) => {
      const page = await service.listSessions(authOf(request).tenantId, request.query);
      return { sessions: page.data.map((session) => wire(request, session)), pagination_meta: page.pagination_meta };
    });

    // 200 as in the reference (not 201).
    app.post('/api/v1/checkout-sessions', {
      schema: {
        tags,
        operationId: 'create_checkout_session',
        summary: 'Create a checkout session',
        description:
          'Prepares a subscription that starts once the customer pays. The whole subscription is validated and priced now, exactly as `POST /api/v1/subscriptions` would ' +
          '(a 400 names the checkout field: an unknown customer, a plan version that is not published, another currency, a refused coupon, a bad choice of components...), ' +
          'but nothing is written except the session, which stores a fingerprint of what was priced. `start_date` must not be in the past (omitted: the day the session completes); ' +
          '`success_url` and `cancel_url` must be absolute http(s) URLs; `expires_in_hours` is 0 (never) to 720, default 1. `checkout_url` is the hosted checkout page to send the customer to ' +
          '(it shows the offer, takes a coupon and the payment, then redirects to `success_url`); or your own page shows the offer and calls complete once the customer paid. Answers 200 with `{session}` (status CREATED, type SELF_SERVE).',
        body: documented(CreateCheckoutSessionRequest, 'The customer, the published plan version and the subscription\'s settings', ex.createSessionExample),
        response: { 200: documented(SessionResponse, 'The new session', { session: ex.createdSessionExample }), ...errorResponses([400, 401, 409]) },
      },
    }, async (request) => ({ session: wire(request, await service.createSession(authOf(request).tenantId, request.body)) }));

    app.get('/api/v1/checkout-sessions/:id', {
      schema: {
        tags,
        operationId: 'get_checkout_session',
        summary: 'Get a checkout session',
        description: 'One session, as `{session}`; once COMPLETED it names the subscription it created. A session past `expires_at` is answered EXPIRED. Another tenant\'s session is a 404.',
        params: IdParams,
        response: { 200: documented(SessionResponse, 'The session', { session: ex.completedSessionExample }), ...errorResponses([401, 404]) },
      },
    }, async (request) => ({ session: wire(request, await service.getSession(authOf(request).tenantId, request.params.id)) }));

    app.post('/api/v1/checkout-sessions/:id/cancel', {
      schema: {
        tags,
        operationId: 'cancel_checkout_session',
        summary: 'Cancel a checkout session',
        description:
          'Cancels a CREATED or AWAITING_PAYMENT session; no subscription is created. A session that is already COMPLETED, CANCELLED or EXPIRED is a 400 ' +
          '(as the reference answers), naming its state. ' + STATUSES,
        params: IdParams,
        response: { 200: documented(SessionResponse, 'The cancelled session', { session: ex.cancelledSessionExample }), ...errorResponses([400, 401, 404, 429, 500]) },
      },
    }, async (request) => ({ session: wire(request, await service.cancelSession(authOf(request).tenantId, request.params.id)) }));

    app.post('/api/v1/checkout-sessions/:id/complete', {
      schema: {
        tags,
        operationId: 'complete_checkout_session',
        summary: 'Complete a checkout session (payment received)',
        description:
          'Records the payment of a session and creates its subscription, exactly once. The body is optional: no body means the payment is settled. ' +
          '`payment_status: PENDING` (payment accepted, not settled) moves the session to AWAITING_PAYMENT; completing it again later creates the subscription. ' +
          'The subscription is priced again first: if anything priced changed since the session was created (a price, coupon or add-on price), it is a 409 and the session ' +
          'stays open: create a new session. The subscription starts on the session\'s `start_date`, or today; coupons are redeemed now. ' +
          'Retrying a completed session answers it unchanged, with the same `subscription_id` (the session row is locked during completion), so a retry or a race never ' +
          'creates a second subscription. A CANCELLED or EXPIRED session is a 400. ' + STATUSES,
        params: IdParams,
        body: documented(CompleteCheckoutSessionRequest, 'How the payment stands, and your payment provider\'s reference', ex.completeSessionExample),
        response: { 200: documented(SessionResponse, 'The session, COMPLETED with its subscription or AWAITING_PAYMENT', { session: ex.completedSessionExample }), ...errorResponses([400, 401, 404, 409]) },
      },
      // The body is optional: a POST without one means "payment settled".
      preValidation: async (request) => {
        request.body ??= {};
      },
    }, async (request) => ({ session: wire(request, await service.completeSession(authOf(request).tenantId, request.params.id, request.body)) }));
  };
}
