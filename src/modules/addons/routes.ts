import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { errorResponses, listResponse, orderByQuery, PageQuery } from '../../http/schemas.js';
import { ResolvedEntitlementList } from '../plans/index.js';
import type { AddOnsService } from './service.js';
import { AddOn, addOnToWire, CreateAddOnRequest, UpdateAddOnRequest } from './schemas.js';

const AddOnIdParams = Type.Object({ addon_id: Type.String({ description: 'Add-on ID' }) });
const tags = ['Add-ons'];

export function addOnRoutes(service: AddOnsService) {
  return (app: App) => {
    app.get('/api/v1/addons', {
      schema: {
        tags,
        operationId: 'list_addons',
        querystring: Type.Object({
          search: Type.Optional(Type.String({ description: 'Search by name' })),
          currency: Type.Optional(Type.String({ description: 'Only add-ons priced in this currency' })),
          include_archived: Type.Optional(Type.Boolean({ default: false, description: 'Include archived add-ons in the results (default: false)' })),
          order_by: orderByQuery(['name', 'created_at'], 'created_at.desc'),
          ...PageQuery,
        }),
        response: { 200: listResponse(AddOn), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.listAddOns(authOf(request).tenantId, request.query);
      return { data: page.data.map(addOnToWire), pagination_meta: page.pagination_meta };
    });

    app.post('/api/v1/addons', {
      schema: { tags, operationId: 'create_addon', body: CreateAddOnRequest, response: { 201: AddOn, ...errorResponses([400, 401]) } },
    }, async (request, reply) => reply.status(201).send(addOnToWire(await service.createAddOn(authOf(request).tenantId, request.body))));

    app.get('/api/v1/addons/:addon_id', {
      schema: { tags, operationId: 'get_addon', params: AddOnIdParams, response: { 200: AddOn, ...errorResponses([401, 404]) } },
    }, async (request) => addOnToWire(await service.getAddOn(authOf(request).tenantId, request.params.addon_id)));

    app.patch('/api/v1/addons/:addon_id', {
      schema: { tags, operationId: 'update_addon', params: AddOnIdParams, body: UpdateAddOnRequest, response: { 200: AddOn, ...errorResponses([400, 401, 404]) } },
    }, async (request) => addOnToWire(await service.updateAddOn(authOf(request).tenantId, request.params.addon_id, request.body)));

    app.post('/api/v1/addons/:addon_id/archive', {
      schema: { tags, operationId: 'archive_addon', params: AddOnIdParams, response: { 204: Type.Null(), ...errorResponses([401, 404]) } },
    }, async (request, reply) => {
      await service.archiveAddOn(authOf(request).tenantId, request.params.addon_id);
      return reply.status(204).send(null);
    });

    app.post('/api/v1/addons/:addon_id/unarchive', {
      schema: { tags, operationId: 'unarchive_addon', params: AddOnIdParams, response: { 204: Type.Null(), ...errorResponses([401, 404]) } },
    }, async (request, reply) => {
      await service.unarchiveAddOn(authOf(request).tenantId, request.params.addon_id);
      return reply.status(204).send(null);
    });

    app.get('/api/v1/addons/:addon_id/entitlements', {
      schema: { tags: ['Add-ons', 'Entitlements'], operationId: 'list_add_on_entitlements', params: AddOnIdParams, response: { 200: ResolvedEntitlementList, ...errorResponses([401, 404]) } },
    }, async (request) => ({ data: await service.addOnEntitlements(authOf(request).tenantId, request.params.addon_id) }));

    app.get('/api/v1/products/:product_id/entitlements', {
      schema: {
        tags: ['Products', 'Entitlements'],
        operationId: 'list_product_entitlements',
        description: 'The feature-level default entitlements of the features that belong to the product.',
        params: Type.Object({ product_id: Type.String({ description: 'Product ID' }) }),
        response: { 200: ResolvedEntitlementList, ...errorResponses([401, 404]) },
      },
    }, async (request) => ({ data: await service.productEntitlements(authOf(request).tenantId, request.params.product_id) }));
  };
}
