import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { AppError } from '../../kernel/errors.js';
import { authOf } from '../../http/auth.js';
import { documented, errorResponses, examplePage, listResponse } from '../../http/schemas.js';
import type { PaymentsService } from './service.js';
import * as s from './schemas.js';

const ConnectionParams = Type.Object({ connection_id: Type.String({ description: 'Payment provider connection ID', examples: [s.CONNECTION_ID] }) });
const CustomerParams = Type.Object({ customer_id: Type.String({ description: 'Customer ID or alias', examples: [s.CUSTOMER_ID] }) });
const MethodParams = Type.Object({
  customer_id: Type.String({ description: 'Customer ID or alias', examples: [s.CUSTOMER_ID] }),
  payment_method_id: Type.String({ description: 'Payment method ID', examples: [s.METHOD_ID] }),
});
const InvoiceParams = Type.Object({ invoice_id: Type.String({ description: 'Invoice ID', examples: [s.INVOICE_ID] }) });
const Received = Type.Object({ received: Type.Boolean(), duplicate: Type.Boolean({ description: 'true when this provider event id was processed before' }) });

/** The exact bytes of each webhook request, for the signature check. */
const rawBodies = new WeakMap<object, string>();

const page = <T>(items: T[]) => ({ data: items, pagination_meta: { page: 0, per_page: Math.max(items.length, 1), total_items: items.length, total_pages: items.length ? 1 : 0 } });

export function paymentRoutes(service: PaymentsService) {
  return async (app: App) => {
    const tags = ['Payments'];
    app.post('/api/v1/payment-providers', {
      schema: {
        tags,
        operationId: 'connect_payment_provider',
        summary: 'Connect a payment provider',
        description:
          'Stores the tenant\'s Stripe keys or GoCardless access token, encrypted with the service secret, without calling the provider (use the verify action to check them). The secret key is never shown again: ' +
          'answers carry only `secret_key_hint`. Create a Stripe webhook endpoint for `webhook_path` and send its signing secret as `webhook_secret`. ' +
          'Refused with a 400: another provider than stripe or gocardless, a malformed key or signing secret. Refused with a 409: a sandbox tenant (it charges through the built-in sandbox provider), ' +
          'a provider already connected (one connection per tenant).',
        body: documented(s.ConnectRequest, 'The provider and its credentials', { provider: 'stripe', secret_key: 'sk_live_51HxAmPlE0000000000004f2A', webhook_secret: 'whsec_3f9aExAmPlE000' }),
        response: { 201: documented(s.Connection, 'The connection, keys hidden', s.connectionExample), ...errorResponses([400, 401, 409]) },
      },
    }, async (request, reply) => reply.status(201).send(s.connectionToWire(await service.connect(authOf(request).tenantId, request.body))));

    app.get('/api/v1/payment-providers', {
      schema: {
        tags,
        operationId: 'list_payment_providers',
        summary: 'List payment provider connections',
        description: 'The tenant\'s provider connections (at most one per provider), keys hidden. A sandbox tenant has none: it uses the built-in sandbox provider.',
        response: { 200: documented(listResponse(s.Connection), 'The connections', examplePage([s.connectionExample])), ...errorResponses([401]) },
      },
    }, async (request) => page((await service.listConnections(authOf(request).tenantId)).map(s.connectionToWire)));

    app.get('/api/v1/payment-providers/:connection_id', {
      schema: {
        tags,
        operationId: 'get_payment_provider',
        summary: 'Get a payment provider connection',
        description: 'One connection, keys hidden. Another tenant\'s connection is a 404.',
        params: ConnectionParams,
        response: { 200: documented(s.Connection, 'The connection', s.connectionExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => s.connectionToWire(await service.getConnection(authOf(request).tenantId, request.params.connection_id)));

    app.post('/api/v1/payment-providers/:connection_id/verify', {
      schema: {
        tags,
        operationId: 'verify_payment_provider',
        summary: 'Verify a payment provider connection',
        description: 'Asks the provider, with one read-only call (Stripe: retrieve the balance), whether the stored key works: `status` becomes VERIFIED, or INVALID with `last_error`.',
        params: ConnectionParams,
        response: { 200: documented(s.Connection, 'The connection after the check', s.connectionExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => s.connectionToWire(await service.verify(authOf(request).tenantId, request.params.connection_id)));

    app.delete('/api/v1/payment-providers/:connection_id', {
      schema: {
        tags,
        operationId: 'delete_payment_provider',
        summary: 'Disconnect a payment provider',
        description: 'Deletes the connection and its stored keys. Nothing is charged through it afterwards and its webhooks are refused (404). Saved methods stay listed but are not charged.',
        params: ConnectionParams,
        response: { 204: documented(Type.Null(), 'Disconnected; no body.'), ...errorResponses([401, 404]) },
      },
    }, async (request, reply) => {
      await service.disconnect(authOf(request).tenantId, request.params.connection_id);
      return reply.status(204).send(null);
    });

    // Provider webhooks read their raw body: the signature covers the exact bytes.
    await app.register(async (scope) => {
      scope.removeContentTypeParser('application/json');
      scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
        rawBodies.set(request, body as string);
        try {
          done(null, JSON.parse(body as string));
        } catch {
          done(new AppError('BAD_REQUEST', 'webhook body must be JSON'), undefined);
        }
      });
      scope.post('/api/v1/payment-providers/:connection_id/webhooks', {
        config: { public: true },
        schema: {
          tags,
          operationId: 'receive_payment_provider_webhook',
          summary: 'Receive a payment provider webhook',
          description:
            'Where the provider posts its events (Stripe: `payment_intent.*`; GoCardless: batches of `payments` events). No API key: the body must carry a valid signature of the connection\'s webhook secret ' +
            '(`Stripe-Signature`, GoCardless `Webhook-Signature`), else 400. Each provider event id is applied once; a replay answers 200 with `duplicate: true`. Events may arrive in any order: ' +
            'a payment never moves back from SUCCEEDED.',
          params: ConnectionParams,
          body: documented(Type.Object({}, { additionalProperties: true }), 'The provider\'s event, exactly as sent', { id: 'evt_1QExAmPlE', type: 'payment_intent.succeeded', data: { object: { id: 'pi_3QExAmPlE', object: 'payment_intent' } } }),
          response: { 200: documented(Received, 'Accepted', { received: true, duplicate: false }), ...errorResponses([400, 404]) },
        },
      }, async (request) => {
        const result = await service.receiveWebhook((request.params as { connection_id: string }).connection_id, rawBodies.get(request) ?? '', request.headers);
        return { received: true, duplicate: result.duplicate };
      });
    });

    app.post('/api/v1/customers/:customer_id/payment-methods', {
      schema: {
        tags,
        operationId: 'attach_payment_method',
        summary: 'Save a payment method for a customer',
        description:
          'Saves a method with the tenant\'s provider for off-session charges (Stripe: a confirmed SetupIntent; GoCardless: a direct debit mandate). Sandbox tenants send a test `card_number`; Stripe tenants send the ' +
          '`provider_payment_method_id` Stripe.js created, or an `iban` (SEPA Direct Debit; the customer needs a `billing_email`); GoCardless tenants send an `iban` (and `account_holder_name`) or a `mandate_id`. The first method becomes the default. Refused with a 400: the field the provider needs is missing, the provider refused ' +
          'the card (the message says why). 409: no provider (a production tenant without a connection).',
        params: CustomerParams,
        body: documented(s.AttachMethodRequest, 'The card', { card_number: '4242424242424242' }),
        response: { 201: documented(s.PaymentMethod, 'The saved method', s.methodExample), ...errorResponses([400, 401, 404, 409]) },
      },
    }, async (request, reply) => {
      const tenantId = authOf(request).tenantId;
      const row = await service.attachMethod(tenantId, request.params.customer_id, request.body);
      const settings = await service.getSettings(tenantId, row.customer_id);
      return reply.status(201).send(s.methodToWire(row, settings.default_payment_method_id));
    });

    app.get('/api/v1/customers/:customer_id/payment-methods', {
      schema: {
        tags,
        operationId: 'list_payment_methods',
        summary: 'List a customer\'s payment methods',
        description: 'Saved methods, oldest first; `is_default` marks the one charged.',
        params: CustomerParams,
        response: { 200: documented(listResponse(s.PaymentMethod), 'The methods', examplePage([s.methodExample])), ...errorResponses([401, 404]) },
      },
    }, async (request) => {
      const { methods, settings } = await service.listMethods(authOf(request).tenantId, request.params.customer_id);
      return page(methods.map((m) => s.methodToWire(m, settings.default_payment_method_id)));
    });

    app.delete('/api/v1/customers/:customer_id/payment-methods/:payment_method_id', {
      schema: {
        tags,
        operationId: 'detach_payment_method',
        summary: 'Remove a customer\'s payment method',
        description: 'Stops using the method; if it was the default, the customer has no default until one is set. Past transactions keep naming it.',
        params: MethodParams,
        response: { 204: documented(Type.Null(), 'Removed; no body.'), ...errorResponses([401, 404]) },
      },
    }, async (request, reply) => {
      await service.detachMethod(authOf(request).tenantId, request.params.customer_id, request.params.payment_method_id);
      return reply.status(204).send(null);
    });

    app.get('/api/v1/customers/:customer_id/payment-settings', {
      schema: {
        tags,
        operationId: 'get_payment_settings',
        summary: 'Get a customer\'s payment settings',
        description: 'Whether finalized invoices are charged automatically (`auto_charge`, default true) and the default method.',
        params: CustomerParams,
        response: { 200: documented(s.Settings, 'The settings', s.settingsExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => s.settingsToWire(await service.getSettings(authOf(request).tenantId, request.params.customer_id)));

    app.patch('/api/v1/customers/:customer_id/payment-settings', {
      schema: {
        tags,
        operationId: 'update_payment_settings',
        summary: 'Update a customer\'s payment settings',
        description: 'Changes `auto_charge` and/or the default method; omitted fields keep their value. A method of another customer is a 400.',
        params: CustomerParams,
        body: documented(s.SettingsRequest, 'The fields to change', { auto_charge: false }),
        response: { 200: documented(s.Settings, 'The settings', s.settingsExample), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => s.settingsToWire(await service.updateSettings(authOf(request).tenantId, request.params.customer_id, request.body)));

    app.get('/api/v1/invoices/:invoice_id/payment-transactions', {
      schema: {
        tags,
        operationId: 'list_invoice_payment_transactions',
        summary: 'List an invoice\'s payment transactions',
        description:
          'Every charge attempt through a provider for this invoice, oldest first: PENDING (asked, no final answer yet), SUCCEEDED, FAILED (with the provider\'s `error` code), ' +
          'REQUIRES_ACTION (the customer must authenticate). Manual payments are listed on the invoice itself (`transactions`).',
        params: InvoiceParams,
        response: { 200: documented(listResponse(s.PaymentTransaction), 'The transactions', examplePage([s.transactionExample])), ...errorResponses([401, 404]) },
      },
    }, async (request) => {
      const { attempts, methods } = await service.listAttempts(authOf(request).tenantId, request.params.invoice_id);
      return page(attempts.map((a) => s.transactionToWire(a, methods)));
    });
  };
}
