import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, ErrorBody, errorResponses, examplePage, listResponse, MessageBody, Nullable, orderByQuery, PageQuery } from '../../http/schemas.js';
import { createCustomerExample, customerExample, replacedCustomerExample, replaceCustomerExample } from './examples.js';
import type { CustomersService } from './service.js';
import { customPropertyFilterQuery, FILTER_HELP } from '../custom-properties/index.js';
import { Customer, CustomerCreateRequest, CustomerPatchRequest, CustomerUpdateRequest, customerToWire } from './schemas.js';

const IdOrAlias = Type.Object({ id_or_alias: Type.String({ description: 'customer ID or alias' }) });
const ORDER_COLUMNS = ['name', 'email', 'alias', 'created_at'];

/** The checks every write (create, PUT, PATCH) makes on the customer it would store (service.ts `validate`). */
const FIELD_RULES =
  '`name` is 1 to 255 characters, not blank; `currency` is an ISO 4217 code (three upper-case letters): the currency of its subscriptions, invoices and balance. ' +
  '`alias` (1 to 200 characters) is a second key for the customer\'s URLs and must be unique in the tenant (409). `billing_email` and `invoicing_emails` must be e-mail addresses. ' +
  'Addresses take `line1`, `line2`, `city`, `state`, `zip_code` and `country` (ISO 3166-1 alpha-2). `reverse_charge` needs a `vat_number` and excludes `is_tax_exempt`. ' +
  '`custom_taxes[].rate` is a fraction as a decimal string from 0 to 1 ("0.2" = 20 %). `custom_properties` is checked against the CUSTOMER custom properties (docs/custom-properties.md): a wrong value is a 400 naming `custom_properties.<key>`; keys without a definition hold strings. ' +
  '`invoicing_entity_id` names the invoicing entity that issues the customer\'s invoices: an entity of the tenant that is not archived (otherwise a 400); ' +
  'null (or left out on create) is the tenant\'s default entity, and left out on PUT or PATCH keeps the current one. Invoices already created keep their entity. Unknown fields are a 400.';
const ALIAS_TAKEN = documented(ErrorBody, 'The alias is used by another customer.', { code: 'CONFLICT', message: "alias 'acme' is already used by another customer" });
const CURRENCY_FROZEN = '`currency` cannot change once the customer has a subscription or a non-zero balance (400).';

export function customerRoutes(service: CustomersService) {
  return (app: App) => {
    const tags = ['Customers'];

    app.get('/api/v1/customers', {
      schema: {
        tags,
        operationId: 'list_customers',
        summary: 'List customers',
        description:
          'Lists the tenant\'s customers, newest first unless `order_by` says otherwise (missing values sort last). `search` matches part of the name, alias or billing e-mail, ' +
          'ignoring case, or the exact id. Active customers are listed by default; `archived=true` lists the archived ones instead. ' + FILTER_HELP + ' Paged: `page` from 0, `per_page` 1 to 100 (default 10).',
        querystring: Type.Object({
          order_by: orderByQuery(ORDER_COLUMNS, 'created_at.desc'),
          ...PageQuery,
          search: Type.Optional(Type.String({ description: 'Matches name, alias, billing e-mail or id' })),
          archived: Type.Optional(Type.Boolean({ description: 'true lists archived customers only; default lists active ones' })),
        }, customPropertyFilterQuery),
        response: { 200: documented(listResponse(Customer), 'A page of customers.', examplePage([customerExample])), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.listCustomers(authOf(request).tenantId, request.query);
      return { data: page.data.map(customerToWire), pagination_meta: page.pagination_meta };
    });

    app.post('/api/v1/customers', {
      schema: {
        tags,
        operationId: 'create_customer',
        summary: 'Create a customer',
        description:
          `Creates a customer with a balance of zero. ${FIELD_RULES} Fields left out are empty (null, false, [] or {}). \`connected_account_id\` can only be set here. Emits \`customer.created\`.`,
        body: documented(CustomerCreateRequest, 'The customer to create.', createCustomerExample),
        response: {
          201: documented(Customer, 'The new customer.', customerExample),
          ...errorResponses([400, 401]),
          409: documented(ErrorBody, 'The alias is used by another customer, or the Idempotency-Key was used with another request.', {
            code: 'CONFLICT',
            message: "alias 'acme' is already used by another customer",
          }),
        },
      },
    }, async (request, reply) => reply.status(201).send(customerToWire(await service.createCustomer(authOf(request).tenantId, request.body))));

    app.get('/api/v1/customers/:id_or_alias', {
      schema: {
        tags,
        operationId: 'get_customer',
        summary: 'Get a customer',
        description: 'Returns the customer with this id, or else the one with this alias, archived or not, with its balance as a decimal string in its currency.',
        params: IdOrAlias,
        response: { 200: documented(Customer, 'The customer.', { ...customerExample, balance: '25.00' }), ...errorResponses([401, 404]) },
      },
    }, async (request) => customerToWire(await service.getCustomer(authOf(request).tenantId, request.params.id_or_alias)));

    app.put('/api/v1/customers/:id_or_alias', {
      schema: {
        tags,
        operationId: 'update_customer',
        summary: 'Replace a customer',
        description:
          'Replaces the customer: `name`, `currency`, `invoicing_emails` and `custom_taxes` are required, and optional fields left out become empty (null, false, [] or {}). ' +
          `The id, balance, connected account and archive state stay. ${FIELD_RULES} ${CURRENCY_FROZEN} Emits \`customer.updated\`.`,
        params: IdOrAlias,
        body: documented(CustomerUpdateRequest, 'The whole customer.', replaceCustomerExample),
        response: { 200: documented(Customer, 'The customer as replaced.', replacedCustomerExample), ...errorResponses([400, 401, 404]), 409: ALIAS_TAKEN },
      },
    }, async (request) => customerToWire(await service.replaceCustomer(authOf(request).tenantId, request.params.id_or_alias, request.body)));

    app.patch('/api/v1/customers/:id_or_alias', {
      schema: {
        tags,
        operationId: 'patch_customer',
        summary: 'Update a customer',
        description:
          'Changes only the fields given; null clears a field (to null, false, [] or {}), except `name` and `currency`, which a null leaves unchanged. ' +
          `${FIELD_RULES} ${CURRENCY_FROZEN} Emits \`customer.updated\`.`,
        params: IdOrAlias,
        body: documented(CustomerPatchRequest, 'The fields to change.', { phone: '+49 30 1234567', invoicing_emails: ['ap@acme.example', 'cfo@acme.example'] }),
        response: {
          200: documented(Customer, 'The customer as changed.', { ...customerExample, phone: '+49 30 1234567', invoicing_emails: ['ap@acme.example', 'cfo@acme.example'] }),
          ...errorResponses([400, 401, 404]),
          409: ALIAS_TAKEN,
        },
      },
    }, async (request) => customerToWire(await service.patchCustomer(authOf(request).tenantId, request.params.id_or_alias, request.body)));

    app.delete('/api/v1/customers/:id_or_alias', {
      schema: {
        tags,
        operationId: 'archive_customer',
        summary: 'Archive a customer',
        description:
          'Archives the customer; nothing is deleted. It leaves the default list (`archived=true` shows it) and cannot get new subscriptions. ' +
          'A customer with a subscription that is not cancelled or ended is a 409: cancel its subscriptions first. Archiving an archived customer changes nothing. ' +
          'Emits `customer.archived`.',
        params: IdOrAlias,
        response: {
          204: documented(Type.Null(), 'Archived (or already archived); no body.'),
          ...errorResponses([401, 404]),
          409: documented(ErrorBody, 'The customer has subscriptions that are not cancelled or ended.', {
            code: 'CONFLICT',
            message: 'customer has 1 subscription(s) that are not cancelled or ended; cancel them before archiving',
          }),
        },
      },
    }, async (request, reply) => {
      await service.archiveCustomer(authOf(request).tenantId, request.params.id_or_alias);
      return reply.status(204).send(null);
    });

    app.post('/api/v1/customers/:id_or_alias/unarchive', {
      // The spec gives this operation {message} bodies, on success and on error (shape B).
      config: { errorShape: 'message' },
      schema: {
        tags,
        operationId: 'unarchive_customer',
        summary: 'Unarchive a customer',
        description:
          'Restores an archived customer: it is listed again and can get new subscriptions. A customer that is not archived is a 400, and so is one whose invoicing entity is archived ' +
          '(unarchive the entity, or move the customer to another with PATCH, first). ' +
          'This operation answers `{message}`, on success and on error. Emits `customer.unarchived`.',
        params: IdOrAlias,
        response: {
          200: documented(MessageBody, 'The customer is restored.', { message: 'customer cus_01KKRNW4G00DQZJ9RBQHV3B9GB unarchived' }),
          ...errorResponses([401, 404], MessageBody),
          400: documented(MessageBody, 'The customer is not archived, or its invoicing entity is archived.', { message: 'customer is not archived' }),
        },
      },
    }, async (request) => {
      const customer = await service.unarchiveCustomer(authOf(request).tenantId, request.params.id_or_alias);
      return { message: `customer ${customer.id} unarchived` };
    });

    app.post('/api/v1/customers/:id_or_alias/balance', {
      schema: {
        tags,
        operationId: 'credit_customer_balance',
        summary: 'Credit or debit the customer balance',
        description:
          'Adds credit (positive amount) to or removes credit (negative amount) from the customer balance. `amount` is a decimal string in the customer\'s currency with at most ' +
          'its decimals (2 for EUR); zero is a 400, and so is a debit that would take the balance below zero. `note` (up to 500 characters) is kept with the movement. ' +
          'The balance is applied to the customer\'s invoices when they are finalized. Each call moves the balance again: send an `Idempotency-Key` so a retry does not. ' +
          'Emits `customer.updated`.',
        params: IdOrAlias,
        body: documented(
          Type.Object({
            amount: Type.String({ description: 'Decimal string in the customer currency, e.g. "25.00"' }),
            note: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
          }, { additionalProperties: false }),
          'The movement.',
          { amount: '25.00', note: 'Goodwill credit for the March outage' },
        ),
        response: { 200: documented(Customer, 'The customer with its new balance.', { ...customerExample, balance: '25.00' }), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => customerToWire(await service.topUpBalance(authOf(request).tenantId, request.params.id_or_alias, request.body)));
  };
}
