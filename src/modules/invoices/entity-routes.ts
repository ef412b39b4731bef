import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, ErrorBody, errorResponses } from '../../http/schemas.js';
import type { InvoicingEntitiesService } from './entities-service.js';
import { CreateInvoicingEntityRequest, entityToWire, InvoicingEntity, UpdateInvoicingEntityRequest } from './entity-schemas.js';
import * as ex from './examples.js';

/** The checks create and update make, said once for both operations. */
const FIELD_RULES =
  'Refused with a 400 naming the field: an empty `legal_name`, a `country` that is not an upper-case ISO 3166-1 alpha-2 code, a number prefix longer than 20 characters ' +
  'or with characters other than letters, digits and `- _ / .`, `net_terms` outside 0-365 days, `grace_period_hours` outside 0-744, an IBAN whose checksum fails, a BIC ' +
  'that is not 8 or 11 letters and digits, `bank_details` with neither `iban` nor `account_number`, a `contact_email` that is not an e-mail address, a `contact_phone` ' +
  'other than digits, spaces and `+ ( ) - / .` (at least 3 digits), a `peppol_endpoint_scheme` that is not a 4-digit Peppol EAS code (e.g. `0088`), a `peppol_endpoint_id` ' +
  'with spaces or over 50 characters, only one of the two Peppol endpoint fields, and a `logo` that is not a data URL of a PNG (8 bits per sample, ' +
  'not interlaced) or JPEG image of at most 256 KiB and 2000 x 2000 pixels. Blank optional texts are stored as null. Unknown fields are a 400.';

const ARCHIVE_REFUSED = documented(ErrorBody, 'The entity is the default, or has customers that are not archived.', {
  code: 'CONFLICT',
  message: 'invoicing entity ive_01KKRNW4G00DCDSVX0Q959VSN7 has 2 customer(s) that are not archived; move them to another entity (PATCH /api/v1/customers/{id_or_alias} with invoicing_entity_id) or archive them first',
});

export function entityRoutes(entities: InvoicingEntitiesService) {
  return (app: App) => {
    const tags = ['Invoicing entities'];
    const EntityParams = Type.Object({ invoicing_entity_id: Type.String({ description: 'Invoicing entity ID', examples: [ex.ENTITY_ID] }) });
    const entityResponse = (description: string, example = ex.entityExample) => documented(InvoicingEntity, description, example);

    app.get('/api/v1/invoicing-entities', {
      schema: {
        tags,
        operationId: 'list_invoicing_entities',
        summary: 'List invoicing entities',
        description:
          'The legal entities that issue the tenant\'s invoices (the sellers), the default first, then oldest first; archived ones only with `include_archived=true`. ' +
          'The first call creates the default entity when the tenant has none: legal name = organization name, country US (so nothing is taxed until you say where you sell from), ' +
          'prefixes `INV-` and `CN-`, net terms 30 days, grace period 24 hours, e-invoicing off. Not paged.',
        querystring: Type.Object({ include_archived: Type.Optional(Type.Boolean({ default: false, description: 'true lists archived entities too' })) }),
        response: {
          200: documented(Type.Object({ data: Type.Array(InvoicingEntity) }), 'The invoicing entities', { data: [ex.entityExample, ex.secondEntityExample] }),
          ...errorResponses([400, 401]),
        },
      },
    }, async (request) => ({ data: (await entities.list(authOf(request).tenantId, request.query)).map(entityToWire) }));

    app.post('/api/v1/invoicing-entities', {
      schema: {
        tags,
        operationId: 'create_invoicing_entity',
        summary: 'Create an invoicing entity',
        description:
          'Adds a seller to the tenant, e.g. a subsidiary in another country. It has its own invoice and credit-note number sequences (from 1, with its own prefixes: ' +
          'two entities may even share a prefix, each counts for itself), its own net terms and grace period, and its own country, which decides the tax of its invoices. ' +
          'Customers choose it with `invoicing_entity_id`. `legal_name` and `country` are required; the rest defaults as the first entity does. ' +
          `\`is_default: true\` makes it the default at once (the previous default stops being one); the first entity of a tenant is the default anyway. ${FIELD_RULES}`,
        body: documented(CreateInvoicingEntityRequest, 'The entity to create', ex.entityCreateExample),
        response: { 201: entityResponse('The new invoicing entity', ex.secondEntityExample), ...errorResponses([400, 401]) },
      },
    }, async (request, reply) => reply.status(201).send(entityToWire(await entities.create(authOf(request).tenantId, request.body))));

    app.get('/api/v1/invoicing-entities/:invoicing_entity_id', {
      schema: {
        tags,
        operationId: 'get_invoicing_entity',
        summary: 'Get an invoicing entity',
        description: 'One invoicing entity, archived or not, with the numbers its next invoice and credit note will take. Another tenant\'s entity is a 404.',
        params: EntityParams,
        response: { 200: entityResponse('The invoicing entity'), ...errorResponses([401, 404]) },
      },
    }, async (request) => entityToWire(await entities.get(authOf(request).tenantId, request.params.invoicing_entity_id)));

    app.patch('/api/v1/invoicing-entities/:invoicing_entity_id', {
      schema: {
        tags,
        operationId: 'update_invoicing_entity',
        summary: 'Update an invoicing entity',
        description:
          'Changes the fields sent (null clears an optional field). The number counters cannot be set: numbers stay gapless. `is_default: true` makes this entity the default ' +
          '(in one transaction: the previous default stops being one); `is_default: false` is a 400 (a tenant always has one default: set it on another entity), and an ' +
          `archived entity cannot become the default (409). ${FIELD_RULES} ` +
          'The entity\'s drafts are refreshed in the same transaction: they show the entity as it is now (name, address, numbers, bank details) and their tax follows its ' +
          'country; finalization freezes what an invoice shows, so finalized invoices never change. Another tenant\'s entity is a 404.',
        params: EntityParams,
        body: documented(UpdateInvoicingEntityRequest, 'The fields to change', ex.entityUpdateExample),
        response: { 200: entityResponse('The updated invoicing entity'), ...errorResponses([400, 401, 404, 409]) },
      },
    }, async (request) => entityToWire(await entities.update(authOf(request).tenantId, request.params.invoicing_entity_id, request.body)));

    app.post('/api/v1/invoicing-entities/:invoicing_entity_id/archive', {
      schema: {
        tags,
        operationId: 'archive_invoicing_entity',
        summary: 'Archive an invoicing entity',
        description:
          'Archives the entity: it keeps its invoices and number sequences (its drafts still finalize with it), leaves the list unless `include_archived=true`, and takes no ' +
          'customers (creating or moving a customer onto it is a 400). Refused with a 409: the default entity (make another one the default first), and an entity with ' +
          'customers that are not archived (move them with `PATCH /api/v1/customers/{id_or_alias}` or archive them first). Archiving an archived entity changes nothing.',
        params: EntityParams,
        response: { 200: entityResponse('The archived entity', ex.archivedEntityExample), ...errorResponses([401, 404]), 409: ARCHIVE_REFUSED },
      },
    }, async (request) => entityToWire(await entities.archive(authOf(request).tenantId, request.params.invoicing_entity_id)));

    app.post('/api/v1/invoicing-entities/:invoicing_entity_id/unarchive', {
      schema: {
        tags,
        operationId: 'unarchive_invoicing_entity',
        summary: 'Unarchive an invoicing entity',
        description: 'Makes an archived entity take customers again and shows it in the list. An entity that is not archived is answered as it is.',
        params: EntityParams,
        response: { 200: entityResponse('The entity, no longer archived', ex.secondEntityExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => entityToWire(await entities.unarchive(authOf(request).tenantId, request.params.invoicing_entity_id)));
  };
}
