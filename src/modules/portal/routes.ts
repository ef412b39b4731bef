import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, ErrorBody, errorResponses, PageQuery } from '../../http/schemas.js';
import { PdfResponse, XmlResponse } from '../invoices/index.js';
import type { PortalTokensService } from './tokens-service.js';
import type { PortalViewsService } from './views-service.js';
import {
  CustomerPortalTokenResponse, customerToWire, invoiceToWire, PortalCustomer, PortalInvoiceList, PortalSubscriptionSchema, PortalTokenRequest, PortalUsage,
  RevokedTokensResponse, subscriptionToWire, tokenToWire, usageToWire,
} from './schemas.js';
import * as ex from './examples.js';

const IdOrAlias = Type.Object({ id_or_alias: Type.String({ description: 'customer ID or alias', examples: ['crm-42'] }) });
const TokenQuery = { token: Type.Optional(Type.String({ description: 'Portal token, when the x-portal-token header cannot be sent (links)' })) };
const TokenHeaders = Type.Object({ 'x-portal-token': Type.Optional(Type.String({ description: 'Portal token from create_portal_token', examples: [ex.tokenExample.token] })) });

/** Said by every operation of the token holder. */
const PORTAL_AUTH =
  'For the customer holding a portal link: no API key; send the token as the `x-portal-token` header (preferred) or `?token=` (the header wins). ' +
  'Answers carry `Cache-Control: no-store` and `Referrer-Policy: no-referrer`, since the token may be in the URL.';
/** A missing, invalid, expired or revoked portal token: the three answer the same, so a holder learns nothing about other tokens. */
const PortalUnauthorized = documented(ErrorBody, 'The portal token is missing, invalid, expired or revoked (all answer the same)', {
  code: 'UNAUTHORIZED',
  message: 'invalid, expired or revoked portal token; ask the merchant for a new portal link',
});

/**
 * The token may travel in the URL (portal links, PDF links), so no portal response may be cached
 * or leak its URL through a Referer.
 */
export async function noStore(_request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
  return payload;
}

/** The header wins over the query parameter. */
export function presentedToken(request: FastifyRequest): string | undefined {
  const header = request.headers['x-portal-token'];
  if (typeof header === 'string' && header !== '') return header;
  const query = (request.query ?? {}) as { token?: unknown };
  return typeof query.token === 'string' && query.token !== '' ? query.token : undefined;
}

export function portalApiRoutes(tokens: PortalTokensService, views: PortalViewsService) {
  return (app: App) => {
    app.post('/api/v1/customers/:id_or_alias/portal-token', {
      // The reference takes no body: a call without one means the defaults.
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {};
      },
      schema: {
        tags: ['Customers'],
        summary: 'Generate a portal token for a customer',
        description:
          'Issues a token that opens the customer portal (its usage this period, subscriptions and invoices with PDFs) for one customer (id or alias) of this tenant, ' +
          'to send to the customer as `portal_url`. The body is optional: `expires_in_seconds` is 60 to 2,592,000 (30 days), default 86,400 (24 hours); outside that range ' +
          'it is a 400. The token is shown only here (only its hash is stored); earlier tokens stay valid until they expire or are revoked. An unknown customer is a 404. ' +
          '`portal_url` starts with PUBLIC_BASE_URL, else the origin the request was made on.',
        operationId: 'create_portal_token',
        params: IdOrAlias,
        body: documented(PortalTokenRequest, 'How long the token lives (optional)', { expires_in_seconds: 3600 }),
        response: { 200: documented(CustomerPortalTokenResponse, 'The token and the portal link (shown once)', ex.tokenExample), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => tokenToWire(await tokens.issue(authOf(request).tenantId, request.params.id_or_alias, request.body, `${request.protocol}://${request.host}`)));

    app.delete('/api/v1/customers/:id_or_alias/portal-tokens', {
      schema: {
        tags: ['Customers'],
        summary: "Revoke all of a customer's portal tokens",
        description:
          'Revokes every live portal token of the customer (id or alias) at once, e.g. when a link went to the wrong person or the customer leaves; they answer 401 from now on. ' +
          'Answers how many were revoked (0 when none was live). An unknown customer is a 404.',
        operationId: 'revoke_portal_tokens',
        params: IdOrAlias,
        response: { 200: documented(RevokedTokensResponse, 'How many tokens were revoked', { revoked: 2 }), ...errorResponses([401, 404]) },
      },
    }, async (request) => ({ revoked: await tokens.revokeAll(authOf(request).tenantId, request.params.id_or_alias) }));

    const tags = ['Customer portal'];
    const portal = { config: { public: true }, onSend: noStore } as const;

    app.get('/api/v1/portal/customer', {
      ...portal,
      schema: {
        tags,
        operationId: 'get_portal_customer',
        summary: 'The portal customer',
        description: 'The customer the token opens: name, alias, billing e-mail, currency and credit balance (decimal string). ' + PORTAL_AUTH,
        security: [],
        headers: TokenHeaders,
        querystring: Type.Object(TokenQuery),
        response: { 200: documented(PortalCustomer, 'The customer', ex.customerExample), 401: PortalUnauthorized },
      },
    }, async (request) => customerToWire(await views.customer(await tokens.authenticate(presentedToken(request)))));

    app.get('/api/v1/portal/subscriptions', {
      ...portal,
      schema: {
        tags,
        operationId: 'list_portal_subscriptions',
        summary: "The portal customer's subscriptions",
        description:
          'Every subscription of the customer, whatever its status, with its plan, current period and next invoice date (the same figures as ' +
          '`GET /api/v1/subscriptions/{subscription_id}`; statuses are brought up to date first). Not paged. ' + PORTAL_AUTH,
        security: [],
        headers: TokenHeaders,
        querystring: Type.Object(TokenQuery),
        response: { 200: documented(Type.Object({ data: Type.Array(PortalSubscriptionSchema) }), 'The subscriptions', ex.subscriptionsExample), 401: PortalUnauthorized },
      },
    }, async (request) => ({ data: (await views.subscriptions(await tokens.authenticate(presentedToken(request)))).map(subscriptionToWire) }));

    app.get('/api/v1/portal/usage', {
      ...portal,
      schema: {
        tags,
        operationId: 'get_portal_usage',
        summary: "The portal customer's usage this period",
        description:
          'For each live subscription (pending, trial, active), its current period [period_start, period_end) and, per metric it bills, `total_value`: the same figures as ' +
          '`GET /api/v1/usage/subscription/{subscription_id}`, late events included as soon as they are stored. ' + PORTAL_AUTH,
        security: [],
        headers: TokenHeaders,
        querystring: Type.Object(TokenQuery),
        response: { 200: documented(Type.Object({ data: Type.Array(PortalUsage) }), 'Usage per live subscription', ex.usageExample), 401: PortalUnauthorized },
      },
    }, async (request) => ({ data: (await views.usage(await tokens.authenticate(presentedToken(request)))).map(usageToWire) }));

    app.get('/api/v1/portal/invoices', {
      ...portal,
      schema: {
        tags,
        operationId: 'list_portal_invoices',
        summary: "The portal customer's invoices",
        description:
          'The customer\'s FINALIZED and UNCOLLECTIBLE invoices, newest first (drafts can still change and voided invoices are not owed, so neither is shown). ' +
          'Paged with `page` (0-based) and `per_page` (1-100, default 10); a bad paging value is a 400. ' + PORTAL_AUTH,
        security: [],
        headers: TokenHeaders,
        querystring: Type.Object({ ...TokenQuery, ...PageQuery }),
        response: { 200: documented(PortalInvoiceList, 'One page of invoices', ex.invoicesExample), ...errorResponses([400]), 401: PortalUnauthorized },
      },
    }, async (request) => {
      const result = await views.invoices(await tokens.authenticate(presentedToken(request)), request.query);
      return { data: result.data.map(invoiceToWire), pagination_meta: result.pagination_meta };
    });

    app.get('/api/v1/portal/invoices/:invoice_id/download', {
      ...portal,
      schema: {
        tags,
        operationId: 'download_portal_invoice_pdf',
        summary: 'Download one of the portal customer\'s invoices as PDF',
        description:
          'The accounting PDF of one of the customer\'s FINALIZED or UNCOLLECTIBLE invoices; another customer\'s invoice, a draft or a voided invoice is a 404. ' + PORTAL_AUTH,
        security: [],
        headers: TokenHeaders,
        querystring: Type.Object(TokenQuery),
        params: Type.Object({ invoice_id: Type.String({ description: 'Invoice ID', examples: ['inv_01KKRNW4G02VQRWZ659SDQV12J'] }) }),
        response: { 200: PdfResponse, 401: PortalUnauthorized, ...errorResponses([404]) },
      },
    }, async (request, reply) => {
      const { content, filename } = await views.invoicePdf(await tokens.authenticate(presentedToken(request)), request.params.invoice_id);
      return reply.type('application/pdf').header('content-disposition', `attachment; filename="${filename}"`).send(content as unknown as string);
    });

    app.get('/api/v1/portal/invoices/:invoice_id/e-invoice', {
      ...portal,
      schema: {
        tags,
        operationId: 'download_portal_invoice_e_invoice',
        summary: 'Download one of the portal customer\'s invoices as a structured e-invoice (XML)',
        description:
          'The EN 16931 document (CII or UBL, docs/einvoicing.md) of one of the customer\'s FINALIZED or UNCOLLECTIBLE invoices, when its invoicing entity had opted in (`e_invoice_format` in the list). ' +
          'The PDF of `/download` is the hybrid PDF/A-3 for FACTURX and XRECHNUNG_CII. Another customer\'s invoice, a draft, a voided invoice or an invoice without an e-invoice is a 404. ' + PORTAL_AUTH,
        security: [],
        headers: TokenHeaders,
        querystring: Type.Object(TokenQuery),
        params: Type.Object({ invoice_id: Type.String({ description: 'Invoice ID', examples: ['inv_01KKRNW4G02VQRWZ659SDQV12J'] }) }),
        response: { 200: XmlResponse, 401: PortalUnauthorized, ...errorResponses([404]) },
      },
    }, async (request, reply) => {
      const { content, filename } = await views.invoiceEInvoice(await tokens.authenticate(presentedToken(request)), request.params.invoice_id);
      return reply.type('application/xml').header('content-disposition', `attachment; filename="${filename}"`).send(content as unknown as string);
    });
  };
}
