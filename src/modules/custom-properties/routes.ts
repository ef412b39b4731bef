import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, ErrorBody, errorResponses, examplePage, listResponse, PageQuery } from '../../http/schemas.js';
import type { CustomPropertiesService } from './service.js';
import { Definition, DefinitionCreateRequest, DefinitionUpdateRequest, definitionToWire } from './schemas.js';
import { ENTITY_TYPES } from './values.js';

const IdParams = Type.Object({ property_id: Type.String({ description: 'custom property id (cprop_...)' }) });

const example = {
  id: 'cprop_01KKRNW4G00DCDSVX0Q959VSN7',
  entity_type: 'CUSTOMER' as const,
  key: 'tier',
  name: 'Support tier',
  description: null,
  type: 'SINGLE_SELECT' as const,
  options: ['bronze', 'silver', 'gold'],
  required: true,
  default_value: 'bronze',
  display_order: 1,
  print_on_pdf: false,
  created_at: '2026-03-01T09:00:00.000Z',
  updated_at: '2026-03-01T09:00:00.000Z',
  archived_at: null,
};

const RULES =
  '`key` is 1 to 64 letters, digits or underscores, unique per tenant and entity type (409 otherwise, archived properties included). ' +
  '`options` lists the choices of SINGLE_SELECT and MULTI_SELECT (1 to 100 distinct strings) and is refused for other types. ' +
  '`default_value` must be a value of the type. `print_on_pdf` is for INVOICE properties only.';

export function customPropertyRoutes(service: CustomPropertiesService) {
  return (app: App) => {
    const tags = ['Custom properties'];

    app.get('/api/v1/custom-properties', {
      schema: {
        tags,
        operationId: 'list_custom_properties',
        summary: 'List custom properties',
        description:
          'Lists the tenant\'s custom property definitions by entity type, display order and key. `entity_type` keeps one entity type; `archived=true` lists only archived ' +
          'definitions, `archived=false` only active ones, absent both. Paged: `page` from 0, `per_page` 1 to 100 (default 10).',
        querystring: Type.Object({
          entity_type: Type.Optional(Type.Enum(ENTITY_TYPES, { description: 'Only definitions of this entity type' })),
          archived: Type.Optional(Type.Boolean()),
          ...PageQuery,
        }),
        response: { 200: documented(listResponse(Definition), 'A page of definitions.', examplePage([example])), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.listDefinitions(authOf(request).tenantId, request.query);
      return { data: page.data.map(definitionToWire), pagination_meta: page.pagination_meta };
    });

    app.post('/api/v1/custom-properties', {
      schema: {
        tags,
        operationId: 'create_custom_property',
        summary: 'Create a custom property',
        description:
          `Defines a typed property of customers, subscriptions, plans, products, invoices or credit notes. ${RULES} ` +
          'From then on every write of such an object checks the key\'s value (a 400 naming `custom_properties.<key>`), applies the default to new objects, ' +
          'and, for a required property, to any write that lacks it (a 400 when there is no default). Values stored before are checked on the object\'s next write.',
        body: documented(DefinitionCreateRequest, 'The definition.', {
          entity_type: 'CUSTOMER', key: 'tier', name: 'Support tier', type: 'SINGLE_SELECT', options: ['bronze', 'silver', 'gold'], required: true, default_value: 'bronze', display_order: 1,
        }),
        response: {
          201: documented(Definition, 'The new definition.', example),
          ...errorResponses([400, 401]),
          409: documented(ErrorBody, 'The key is taken for this entity type.', { code: 'CONFLICT', message: "key 'tier' is already a CUSTOMER property of this tenant (archived ones keep their key); choose another key" }),
        },
      },
    }, async (request, reply) => reply.status(201).send(definitionToWire(await service.createDefinition(authOf(request).tenantId, request.body))));

    app.get('/api/v1/custom-properties/:property_id', {
      schema: {
        tags,
        operationId: 'get_custom_property',
        summary: 'Get a custom property',
        description: 'Returns one definition of the tenant, archived or not.',
        params: IdParams,
        response: { 200: documented(Definition, 'The definition.', example), ...errorResponses([401, 404]) },
      },
    }, async (request) => definitionToWire(await service.getDefinition(authOf(request).tenantId, request.params.property_id)));

    app.patch('/api/v1/custom-properties/:property_id', {
      schema: {
        tags,
        operationId: 'update_custom_property',
        summary: 'Update a custom property',
        description:
          'Changes the fields given: `name`, `description`, `options`, `required`, `default_value` (null: none), `display_order`, `print_on_pdf`. ' +
          '`key`, `type` and `entity_type` are fixed at creation: sending any of them is a 400 naming it. The default must hold under the new options. ' +
          'Stored values are not rewritten: an object whose value no longer fits (a removed option) is refused on its next write until it is fixed.',
        params: IdParams,
        body: documented(DefinitionUpdateRequest, 'The fields to change.', { name: 'Support level', options: ['bronze', 'silver', 'gold', 'platinum'] }),
        response: { 200: documented(Definition, 'The definition as changed.', { ...example, name: 'Support level', options: ['bronze', 'silver', 'gold', 'platinum'] }), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => definitionToWire(await service.updateDefinition(authOf(request).tenantId, request.params.property_id, request.body)));

    for (const action of ['archive', 'unarchive'] as const) {
      app.post(`/api/v1/custom-properties/:property_id/${action}`, {
        schema: {
          tags,
          operationId: `${action}_custom_property`,
          summary: action === 'archive' ? 'Archive a custom property' : 'Unarchive a custom property',
          description: action === 'archive'
            ? 'Archives the definition: it is no longer required nor defaulted and PDFs stop printing it. Stored values stay on the objects, are still returned and filtered on, ' +
              'and values written under its key are still checked against its type. The key stays taken. Archiving an archived definition changes nothing.'
            : 'Makes an archived definition active again (required and default apply to later writes). A definition that is not archived is left as it is.',
          params: IdParams,
          response: { 200: documented(Definition, 'The definition.', action === 'archive' ? { ...example, archived_at: '2026-03-02T09:00:00.000Z' } : example), ...errorResponses([401, 404]) },
        },
      }, async (request) => {
        const { tenantId } = authOf(request);
        const row = action === 'archive' ? await service.archiveDefinition(tenantId, request.params.property_id) : await service.unarchiveDefinition(tenantId, request.params.property_id);
        return definitionToWire(row);
      });
    }
  };
}
