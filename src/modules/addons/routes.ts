import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, errorResponses, examplePage, listResponse, orderByQuery, PageQuery } from '../../http/schemas.js';
import { ResolvedEntitlementList } from '../plans/index.js';
import { addOnExample, createAddOnExample, ssoEntitlementExample } from './examples.js';
import type { AddOnsService } from './service.js';
import { AddOn, addOnToWire, CreateAddOnRequest, UpdateAddOnRequest } from './schemas.js';

const AddOnIdParams = Type.Object({ addon_id: Type.String({ description: 'Add-on ID (`add_...`)' }) });
const tags = ['Add-ons'];

const PRICE_RULES =
  'The price is either `price_id`, an existing price of the same product, or `price: {currency, fee}`, which creates one: an ISO 4217 currency and a fee in the ' +
  'plan-component shape (RATE, SLOT, CAPACITY, USAGE, EXTRA_RECURRING or ONE_TIME, prices as decimal strings such as "8.00"), checked against the product like a plan component. ' +
  'Giving both is a 400. `max_instances_per_subscription` is an integer >= 1 (null = no limit). `self_serviceable` is stored and returned. ' +
  '`entitlements` grant features of the tenant that are not archived, each once, with a value of the feature\'s type.';

export function addOnRoutes(service: AddOnsService) {
  return (app: App) => {
    app.get('/api/v1/addons', {
      schema: {
        tags,
        operationId: 'list_addons',
        summary: 'List add-ons',
        description:
          'Lists the tenant\'s add-ons with their price and entitlements, newest first unless `order_by` says otherwise. Filters: `search` (part of the name, case-insensitive), ' +
          '`currency` (add-ons priced in it) and `include_archived` (archived add-ons are left out unless true). Paged: `page` from 0, `per_page` 1 to 100 (default 10).',
        querystring: Type.Object({
          search: Type.Optional(Type.String({ description: 'Search by name' })),
          currency: Type.Optional(Type.String({ description: 'Only add-ons priced in this currency' })),
          include_archived: Type.Optional(Type.Boolean({ default: false, description: 'Include archived add-ons in the results (default: false)' })),
          order_by: orderByQuery(['name', 'created_at'], 'created_at.desc'),
          ...PageQuery,
        }),
        response: { 200: documented(listResponse(AddOn), 'A page of add-ons.', examplePage([addOnExample])), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.listAddOns(authOf(request).tenantId, request.query);
      return { data: page.data.map(addOnToWire), pagination_meta: page.pagination_meta };
    });

    app.post('/api/v1/addons', {
      schema: {
        tags,
        operationId: 'create_addon',
        summary: 'Create an add-on',
        description:
          'Creates an add-on: an extra a plan version can offer and a subscription can carry, priced on one product. `name` is 1 to 255 characters; `product_id` must be a product ' +
          `of the tenant that is not archived. Either \`price_id\` or \`price\` is required. ${PRICE_RULES} Emits \`addon.created\`.`,
        body: documented(CreateAddOnRequest, 'The add-on to create.', createAddOnExample),
        response: { 201: documented(AddOn, 'The new add-on.', addOnExample), ...errorResponses([400, 401]) },
      },
    }, async (request, reply) => reply.status(201).send(addOnToWire(await service.createAddOn(authOf(request).tenantId, request.body))));

    app.get('/api/v1/addons/:addon_id', {
      schema: {
        tags,
        operationId: 'get_addon',
        summary: 'Get an add-on',
        description: 'Returns one add-on of the tenant, archived or not, with its price and entitlements.',
        params: AddOnIdParams,
        response: { 200: documented(AddOn, 'The add-on.', addOnExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => addOnToWire(await service.getAddOn(authOf(request).tenantId, request.params.addon_id)));

    app.patch('/api/v1/addons/:addon_id', {
      schema: {
        tags,
        operationId: 'update_addon',
        summary: 'Update an add-on',
        description:
          'Changes the fields given. A null or absent `name` keeps it (a blank one is a 400); null clears `description` and `max_instances_per_subscription`; a null `self_serviceable` keeps it. ' +
          '`price_id` or `price` gives the add-on another price of its product (the product itself cannot change). `entitlements`, when given, replace all of the add-on\'s grants. ' +
          `${PRICE_RULES} Emits \`addon.updated\`.`,
        params: AddOnIdParams,
        body: documented(UpdateAddOnRequest, 'The fields to change.', { max_instances_per_subscription: 10 }),
        response: { 200: documented(AddOn, 'The add-on as changed.', { ...addOnExample, max_instances_per_subscription: 10 }), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => addOnToWire(await service.updateAddOn(authOf(request).tenantId, request.params.addon_id, request.body)));

    app.post('/api/v1/addons/:addon_id/archive', {
      schema: {
        tags,
        operationId: 'archive_addon',
        summary: 'Archive an add-on',
        description:
          'Archives the add-on: lists leave it out unless `include_archived=true`, and new plan versions and subscriptions can no longer take it (400). ' +
          'Subscriptions that carry it keep it. Archiving an archived add-on changes nothing. Emits `addon.archived`.',
        params: AddOnIdParams,
        response: { 204: documented(Type.Null(), 'Archived (or already archived); no body.'), ...errorResponses([401, 404]) },
      },
    }, async (request, reply) => {
      await service.archiveAddOn(authOf(request).tenantId, request.params.addon_id);
      return reply.status(204).send(null);
    });

    app.post('/api/v1/addons/:addon_id/unarchive', {
      schema: {
        tags,
        operationId: 'unarchive_addon',
        summary: 'Unarchive an add-on',
        description: 'Makes an archived add-on available to plan versions and subscriptions again; one that is not archived is left as it is. No event is emitted.',
        params: AddOnIdParams,
        response: { 204: documented(Type.Null(), 'Unarchived (or was not archived); no body.'), ...errorResponses([401, 404]) },
      },
    }, async (request, reply) => {
      await service.unarchiveAddOn(authOf(request).tenantId, request.params.addon_id);
      return reply.status(204).send(null);
    });

    app.get('/api/v1/addons/:addon_id/entitlements', {
      schema: {
        tags: ['Add-ons', 'Entitlements'],
        operationId: 'list_add_on_entitlements',
        summary: 'List add-on entitlements',
        description:
          'Lists the features the add-on grants, with each feature and its value (a metered value also names the feature\'s metric), in the order given. Not paged. ' +
          'A subscription carrying the add-on gets these above its plan\'s grants and below its own overrides.',
        params: AddOnIdParams,
        response: { 200: documented(ResolvedEntitlementList, 'The entitlements of the add-on.', { data: [ssoEntitlementExample] }), ...errorResponses([401, 404]) },
      },
    }, async (request) => ({ data: await service.addOnEntitlements(authOf(request).tenantId, request.params.addon_id) }));

    app.get('/api/v1/products/:product_id/entitlements', {
      schema: {
        tags: ['Products', 'Entitlements'],
        operationId: 'list_product_entitlements',
        summary: 'List product entitlements',
        description:
          'The feature-level default entitlements of the features that belong to the product. Features that are archived or have no default are left out; ' +
          'the list follows the feature codes. Not paged.',
        params: Type.Object({ product_id: Type.String({ description: 'Product ID' }) }),
        response: { 200: documented(ResolvedEntitlementList, 'The default entitlements of the product\'s features.', { data: [ssoEntitlementExample] }), ...errorResponses([401, 404]) },
      },
    }, async (request) => ({ data: await service.productEntitlements(authOf(request).tenantId, request.params.product_id) }));
  };
}
