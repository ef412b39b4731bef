import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, errorResponses, examplePage, listResponse, MessageBody, orderByQuery, PageQuery } from '../../http/schemas.js';
import { familyExample, productExample, usageProductExample } from './examples.js';
import { customPropertyFilterQuery, FILTER_HELP } from '../custom-properties/index.js';
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

const ProductIdParams = Type.Object({ product_id: Type.String({ description: 'Product ID (`prd_...`)' }) });

const PAGING = 'Paged: `page` from 0, `per_page` 1 to 100 (default 10); the answer carries `pagination_meta`.';
const FEE_RULES =
  '`fee_structure` by `type`: `RATE {}`; `SLOT {slot_unit_name, upgrade_policy: PRORATED, downgrade_policy: REMOVE_AT_END_OF_PERIOD}` (both policies default to those values); ' +
  '`CAPACITY {metric_id}`; `USAGE {metric_id, model: PER_UNIT|TIERED|VOLUME|PACKAGE|MATRIX}`; `EXTRA_RECURRING {billing_type: ADVANCE|ARREARS}`; `ONE_TIME {}`. ' +
  'A field that does not belong to the type is a 400, and `metric_id` must be a billable metric of the tenant that is not archived. ' +
  'The structure holds no prices: plans and add-ons price the product.';

export function productRoutes(service: ProductsService) {
  return (app: App) => {
    const familyTags = ['Product families'];
    app.get('/api/v1/product_families', {
      schema: {
        tags: familyTags,
        operationId: 'list_product_families',
        summary: 'List product families',
        description: `Lists the tenant's product families, newest first unless \`order_by\` says otherwise. \`search\` keeps the families whose name contains it, ignoring case. ${PAGING}`,
        querystring: Type.Object({
          order_by: orderByQuery(['name', 'created_at'], 'created_at.desc'),
          ...PageQuery,
          search: Type.Optional(Type.String({ description: 'Part of the name, case-insensitive' })),
        }),
        response: { 200: documented(listResponse(ProductFamily), 'A page of product families.', examplePage([familyExample])), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.listFamilies(authOf(request).tenantId, request.query);
      return { data: page.data.map(familyToWire), pagination_meta: page.pagination_meta };
    });

    app.post('/api/v1/product_families', {
      schema: {
        tags: familyTags,
        operationId: 'create_product_family',
        summary: 'Create a product family',
        description:
          'Creates a product family: the group its products, billable metrics and plans belong to. `name` is 1 to 255 characters and is trimmed; a blank name is a 400. ' +
          '`alias` (optional, 1 to 200 characters) is a second key to fetch the family by; it must be unique in the tenant, a taken alias is a 400. ' +
          'The answer holds the id and the name.',
        body: documented(ProductFamilyCreateRequest, 'The family to create.', { name: 'Cloud Platform', alias: 'cloud' }),
        response: { 201: documented(ProductFamily, 'The new product family.', familyExample), ...errorResponses([400, 401]) },
      },
    }, async (request, reply) => reply.status(201).send(familyToWire(await service.createFamily(authOf(request).tenantId, request.body))));

    app.get('/api/v1/product_families/:id_or_alias', {
      schema: {
        tags: familyTags,
        operationId: 'get_product_family_by_id_or_alias',
        summary: 'Get a product family',
        description: 'Returns the product family with this id, or else the one with this alias.',
        params: Type.Object({ id_or_alias: Type.String({ description: 'product_family ID or alias' }) }),
        response: { 200: documented(ProductFamily, 'The product family.', familyExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => familyToWire(await service.getFamily(authOf(request).tenantId, request.params.id_or_alias)));

    const tags = ['Products'];
    app.get('/api/v1/products', {
      // The spec answers this list's errors as {message} (shape B).
      config: { errorShape: 'message' },
      schema: {
        tags,
        operationId: 'list_products',
        summary: 'List products',
        description:
          'Lists the tenant\'s products, by name A to Z unless `order_by` says otherwise. Filters: `product_family_id` (a family id; an alias does not match), ' +
          '`search` (part of the name, case-insensitive) and `include_archived` (archived products are left out unless true). ' +
          `${FILTER_HELP} ${PAGING} Errors of this operation are \`{message}\`, without \`code\`.`,
        querystring: Type.Object({
          product_family_id: Type.Optional(Type.String({ description: 'Only products of this family (its id)' })),
          search: Type.Optional(Type.String({ description: 'Part of the name, case-insensitive' })),
          order_by: orderByQuery(['name', 'created_at'], 'name.asc'),
          ...PageQuery,
          include_archived: Type.Optional(Type.Boolean({ default: false })),
        }, customPropertyFilterQuery),
        response: { 200: documented(listResponse(Product), 'A page of products.', examplePage([usageProductExample, productExample])), ...errorResponses([400, 401], MessageBody) },
      },
    }, async (request) => {
      const page = await service.listProducts(authOf(request).tenantId, request.query);
      return { data: page.data.map(productToWire), pagination_meta: page.pagination_meta };
    });

    app.post('/api/v1/products', {
      schema: {
        tags,
        operationId: 'create_product',
        summary: 'Create a product',
        description:
          'Creates a product: something the tenant sells, with the structure of its fee. `name` is 1 to 255 characters and is trimmed; `product_family_id` is the id or alias ' +
          `of one of the tenant's product families (else a 400); \`catalog\` defaults to true. ${FEE_RULES} Emits the \`product.created\` event.`,
        body: documented(CreateProductRequest, 'The product to create.', {
          name: 'API calls',
          product_family_id: familyExample.id,
          fee_structure: { type: 'USAGE', metric_id: 'bm_01KKRNW4G0H1V3T9GFT3902B3Z', model: 'TIERED' },
        }),
        response: { 201: documented(Product, 'The new product.', usageProductExample), ...errorResponses([400, 401]) },
      },
    }, async (request, reply) => reply.status(201).send(productToWire(await service.createProduct(authOf(request).tenantId, request.body))));

    app.get('/api/v1/products/:product_id', {
      schema: {
        tags,
        operationId: 'get_product',
        summary: 'Get a product',
        description: 'Returns one product of the tenant, archived or not.',
        params: ProductIdParams,
        response: { 200: documented(Product, 'The product.', productExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => productToWire(await service.getProduct(authOf(request).tenantId, request.params.product_id)));

    app.patch('/api/v1/products/:product_id', {
      schema: {
        tags,
        operationId: 'update_product',
        summary: 'Update a product',
        description:
          'Changes the fields given. `name` (absent or null keeps it) must not be blank; `description: null` clears it. `fee_structure` replaces the structure but its `type` ' +
          `is fixed at creation: another type is a 400. ${FEE_RULES} Emits the \`product.updated\` event.`,
        params: ProductIdParams,
        body: documented(UpdateProductRequest, 'The fields to change.', { description: 'Access to the platform, billed monthly' }),
        response: {
          200: documented(Product, 'The product as changed.', { ...productExample, description: 'Access to the platform, billed monthly' }),
          ...errorResponses([400, 401, 404]),
        },
      },
    }, async (request) => productToWire(await service.updateProduct(authOf(request).tenantId, request.params.product_id, request.body)));

    app.post('/api/v1/products/:product_id/archive', {
      schema: {
        tags,
        operationId: 'archive_product',
        summary: 'Archive a product',
        description:
          'Archives the product: lists leave it out unless `include_archived=true`, and new plan components and add-ons refuse it (400). ' +
          'Plans and subscriptions that already price it keep billing it. Archiving an archived product changes nothing. Emits the `product.archived` event.',
        params: ProductIdParams,
        response: { 204: documented(Type.Null(), 'Archived (or already archived); no body.'), ...errorResponses([401, 404]) },
      },
    }, async (request, reply) => {
      await service.archiveProduct(authOf(request).tenantId, request.params.product_id);
      return reply.status(204).send(null);
    });

    app.post('/api/v1/products/:product_id/unarchive', {
      schema: {
        tags,
        operationId: 'unarchive_product',
        summary: 'Unarchive a product',
        description: 'Makes an archived product usable in plans and add-ons again; a product that is not archived is left as it is. No event is emitted.',
        params: ProductIdParams,
        response: { 204: documented(Type.Null(), 'Unarchived (or was not archived); no body.'), ...errorResponses([401, 404]) },
      },
    }, async (request, reply) => {
      await service.unarchiveProduct(authOf(request).tenantId, request.params.product_id);
      return reply.status(204).send(null);
    });
  };
}
