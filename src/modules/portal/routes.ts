import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { errorResponses, PageQuery } from '../../http/schemas.js';
import { PdfResponse } from '../invoices/index.js';
import type { PortalTokensService } from './tokens-service.js';
import type { PortalViewsService } from './views-service.js';
import {
  CustomerPortalTokenResponse, customerToWire, invoiceToWire, PortalCustomer, PortalInvoiceList, PortalSubscriptionSchema, PortalTokenRequest, PortalUsage,
  RevokedTokensResponse, subscriptionToWire, tokenToWire, usageToWire,
} from './schemas.js';

const IdOrAlias = Type.Object({ id_or_alias: Type.String({ description: 'customer ID or alias' }) });
const TokenQuery = { token: Type.Optional(Type.String({ description: 'Portal token, when the x-portal-token header cannot be sent (links)' })) };
const TokenHeaders = Type.Object({ 'x-portal-token': Type.Optional(Type.String({ description: 'Portal token from create_portal_token' })) });

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
        operationId: 'create_portal_token',
        params: IdOrAlias,
        body: PortalTokenRequest,
        response: { 200: CustomerPortalTokenResponse, ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => tokenToWire(await tokens.issue(authOf(request).tenantId, request.params.id_or_alias, request.body, `${request.protocol}://${request.host}`)));

    app.delete('/api/v1/customers/:id_or_alias/portal-tokens', {
      schema: {
        tags: ['Customers'],
        summary: "Revoke all of a customer's portal tokens",
        operationId: 'revoke_portal_tokens',
        params: IdOrAlias,
        response: { 200: RevokedTokensResponse, ...errorResponses([401, 404]) },
      },
    }, async (request) => ({ revoked: await tokens.revokeAll(authOf(request).tenantId, request.params.id_or_alias) }));

    const tags = ['Customer portal'];
    const portal = { config: { public: true }, onSend: noStore } as const;

    app.get('/api/v1/portal/customer', {
      ...portal,
      schema: { tags, operationId: 'get_portal_customer', headers: TokenHeaders, querystring: Type.Object(TokenQuery), response: { 200: PortalCustomer, ...errorResponses([401]) } },
    }, async (request) => customerToWire(await views.customer(await tokens.authenticate(presentedToken(request)))));

    app.get('/api/v1/portal/subscriptions', {
      ...portal,
      schema: { tags, operationId: 'list_portal_subscriptions', headers: TokenHeaders, querystring: Type.Object(TokenQuery), response: { 200: Type.Object({ data: Type.Array(PortalSubscriptionSchema) }), ...errorResponses([401]) } },
    }, async (request) => ({ data: (await views.subscriptions(await tokens.authenticate(presentedToken(request)))).map(subscriptionToWire) }));

    app.get('/api/v1/portal/usage', {
      ...portal,
      schema: { tags, operationId: 'get_portal_usage', headers: TokenHeaders, querystring: Type.Object(TokenQuery), response: { 200: Type.Object({ data: Type.Array(PortalUsage) }), ...errorResponses([401]) } },
    }, async (request) => ({ data: (await views.usage(await tokens.authenticate(presentedToken(request)))).map(usageToWire) }));

    app.get('/api/v1/portal/invoices', {
      ...portal,
      schema: { tags, operationId: 'list_portal_invoices', headers: TokenHeaders, querystring: Type.Object({ ...TokenQuery, ...PageQuery }), response: { 200: PortalInvoiceList, ...errorResponses([400, 401]) } },
    }, async (request) => {
      const result = await views.invoices(await tokens.authenticate(presentedToken(request)), request.query);
      return { data: result.data.map(invoiceToWire), pagination_meta: result.pagination_meta };
    });

    app.get('/api/v1/portal/invoices/:invoice_id/download', {
      ...portal,
      schema: {
        tags, operationId: 'download_portal_invoice_pdf', headers: TokenHeaders, querystring: Type.Object(TokenQuery),
        params: Type.Object({ invoice_id: Type.String() }), response: { 200: PdfResponse, ...errorResponses([401, 404]) },
      },
    }, async (request, reply) => {
      const { content, filename } = await views.invoicePdf(await tokens.authenticate(presentedToken(request)), request.params.invoice_id);
      return reply.type('application/pdf').header('content-disposition', `attachment; filename="${filename}"`).send(content as unknown as string);
    });
  };
}
