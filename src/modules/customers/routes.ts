import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { errorResponses, listResponse, MessageBody, Nullable, orderByQuery, PageQuery } from '../../http/schemas.js';
import type { CustomersService } from './service.js';
import { Customer, CustomerCreateRequest, CustomerPatchRequest, CustomerUpdateRequest, customerToWire } from './schemas.js';

const IdOrAlias = Type.Object({ id_or_alias: Type.String({ description: 'customer ID or alias' }) });
const ORDER_COLUMNS = ['name', 'email', 'alias', 'created_at'];

export function customerRoutes(service: CustomersService) {
  return (app: App) => {
    const tags = ['Customers'];

    app.get('/api/v1/customers', {
      schema: {
        tags,
        operationId: 'list_customers',
        querystring: Type.Object({
          order_by: orderByQuery(ORDER_COLUMNS, 'created_at.desc'),
          ...PageQuery,
          search: Type.Optional(Type.String({ description: 'Matches name, alias, billing e-mail or id' })),
          archived: Type.Optional(Type.Boolean({ description: 'true lists archived customers only; default lists active ones' })),
        }),
        response: { 200: listResponse(Customer), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.listCustomers(authOf(request).tenantId, request.query);
      return { data: page.data.map(customerToWire), pagination_meta: page.pagination_meta };
    });

    app.post('/api/v1/customers', {
      schema: { tags, operationId: 'create_customer', body: CustomerCreateRequest, response: { 201: Customer, ...errorResponses([400, 401, 409]) } },
    }, async (request, reply) => reply.status(201).send(customerToWire(await service.createCustomer(authOf(request).tenantId, request.body))));

    app.get('/api/v1/customers/:id_or_alias', {
      schema: { tags, operationId: 'get_customer', params: IdOrAlias, response: { 200: Customer, ...errorResponses([401, 404]) } },
    }, async (request) => customerToWire(await service.getCustomer(authOf(request).tenantId, request.params.id_or_alias)));

    app.put('/api/v1/customers/:id_or_alias', {
      schema: { tags, operationId: 'update_customer', params: IdOrAlias, body: CustomerUpdateRequest, response: { 200: Customer, ...errorResponses([400, 401, 404, 409]) } },
    }, async (request) => customerToWire(await service.replaceCustomer(authOf(request).tenantId, request.params.id_or_alias, request.body)));

    app.patch('/api/v1/customers/:id_or_alias', {
      schema: { tags, operationId: 'patch_customer', params: IdOrAlias, body: CustomerPatchRequest, response: { 200: Customer, ...errorResponses([400, 401, 404, 409]) } },
    }, async (request) => customerToWire(await service.patchCustomer(authOf(request).tenantId, request.params.id_or_alias, request.body)));

    app.delete('/api/v1/customers/:id_or_alias', {
      schema: { tags, operationId: 'archive_customer', params: IdOrAlias, response: { 204: Type.Null(), ...errorResponses([401, 404, 409]) } },
    }, async (request, reply) => {
      await service.archiveCustomer(authOf(request).tenantId, request.params.id_or_alias);
      return reply.status(204).send(null);
    });

    app.post('/api/v1/customers/:id_or_alias/unarchive', {
      // The spec gives this operation {message} bodies, on success and on error (shape B).
      config: { errorShape: 'message' },
      schema: { tags, operationId: 'unarchive_customer', params: IdOrAlias, response: { 200: MessageBody, ...errorResponses([400, 401, 404], MessageBody) } },
    }, async (request) => {
      const customer = await service.unarchiveCustomer(authOf(request).tenantId, request.params.id_or_alias);
      return { message: `customer ${customer.id} unarchived` };
    });

    app.post('/api/v1/customers/:id_or_alias/balance', {
      schema: {
        tags,
        operationId: 'credit_customer_balance',
        summary: 'Adds credit (positive amount) to or removes credit (negative amount) from the customer balance',
        params: IdOrAlias,
        body: Type.Object({
          amount: Type.String({ description: 'Decimal string in the customer currency, e.g. "25.00"' }),
          note: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
        }, { additionalProperties: false }),
        response: { 200: Customer, ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => customerToWire(await service.topUpBalance(authOf(request).tenantId, request.params.id_or_alias, request.body)));
  };
}
