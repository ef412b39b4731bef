import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { errorResponses, listResponse, MessageBody, orderByQuery, PageQuery } from '../../http/schemas.js';
import type { ProductsService } from './products-service.js';
import {
  CreateProductRequest,
  familyToWire,
  Product,
  ProductFamily,
  ProductFamilyCreateRequest,
  productToWire,
  UpdateProductRequest,
} from './schemas.js';

const ProductIdParams = Type.Object({ product_id: Type.String({ description: 'Product ID' }) });

export function productRoutes(service: ProductsService) {
  return (app: App) => {
    const familyTags = ['Product families'];
    app.get('/api/v1/product_families', {
      schema: {
        tags: familyTags,
        operationId: 'list_product_families',
        querystring: Type.Object({ order_by: orderByQuery(['name', 'created_at'], 'created_at.desc'), ...PageQuery, search: Type.Optional(Type.String()) }),
        response: { 200: listResponse(ProductFamily), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.listFamilies(authOf(request).tenantId, request.query);
      return { data: page.data.map(familyToWire), pagination_meta: page.pagination_meta };
    });

    app.post('/api/v1/product_families', {
      schema: { tags: familyTags, operationId: 'create_product_family', body: ProductFamilyCreateRequest, response: { 201: ProductFamily, ...errorResponses([400, 401]) } },
    }, async (request, reply) => reply.status(201).send(familyToWire(await service.createFamily(authOf(request).tenantId, request.body))));

    app.get('/api/v1/product_families/:id_or_alias', {
      schema: {
        tags: familyTags,
        operationId: 'get_product_family_by_id_or_alias',
        params: Type.Object({ id_or_alias: Type.String({ description: 'product_family ID or alias' }) }),
        response: { 200: ProductFamily, ...errorResponses([401, 404]) },
      },
    }, async (request) => familyToWire(await service.getFamily(authOf(request).tenantId, request.params.id_or_alias)));

    const tags = ['Products'];
    app.get('/api/v1/products', {
      // The spec answers this list's errors as {message} (shape B).
      config: { errorShape: 'message' },
      schema: {
        tags,
        operationId: 'list_products',
        querystring: Type.Object({
          product_family_id: Type.Optional(Type.String()),
          search: Type.Optional(Type.String()),
          order_by: orderByQuery(['name', 'created_at'], 'name.asc'),
          ...PageQuery,
          include_archived: Type.Optional(Type.Boolean({ default: false })),
        }),
        response: { 200: listResponse(Product), ...errorResponses([400, 401], MessageBody) },
      },
    }, async (request) => {
      const page = await service.listProducts(authOf(request).tenantId, request.query);
      return { data: page.data.map(productToWire), pagination_meta: page.pagination_meta };
    });

    app.post('/api/v1/products', {
      schema: { tags, operationId: 'create_product', body: CreateProductRequest, response: { 201: Product, ...errorResponses([400, 401]) } },
    }, async (request, reply) => reply.status(201).send(productToWire(await service.createProduct(authOf(request).tenantId, request.body))));

    app.get('/api/v1/products/:product_id', {
      schema: { tags, operationId: 'get_product', params: ProductIdParams, response: { 200: Product, ...errorResponses([401, 404]) } },
    }, async (request) => productToWire(await service.getProduct(authOf(request).tenantId, request.params.product_id)));

    app.patch('/api/v1/products/:product_id', {
      schema: { tags, operationId: 'update_product', params: ProductIdParams, body: UpdateProductRequest, response: { 200: Product, ...errorResponses([400, 401, 404]) } },
    }, async (request) => productToWire(await service.updateProduct(authOf(request).tenantId, request.params.product_id, request.body)));

    app.post('/api/v1/products/:product_id/archive', {
      schema: { tags, operationId: 'archive_product', params: ProductIdParams, response: { 204: Type.Null(), ...errorResponses([401, 404]) } },
    }, async (request, reply) => {
      await service.archiveProduct(authOf(request).tenantId, request.params.product_id);
      return reply.status(204).send(null);
    });

    app.post('/api/v1/products/:product_id/unarchive', {
      schema: { tags, operationId: 'unarchive_product', params: ProductIdParams, response: { 204: Type.Null(), ...errorResponses([401, 404]) } },
    }, async (request, reply) => {
      await service.unarchiveProduct(authOf(request).tenantId, request.params.product_id);
      return reply.status(204).send(null);
    });
  };
}
