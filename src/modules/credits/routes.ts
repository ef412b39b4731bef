import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, errorResponses, examplePage, listResponse, PageQuery } from '../../http/schemas.js';
import * as ex from './examples.js';
import type { CreditsService } from './service.js';
import {
  balanceToWire, CreateGrantBody, CreditBalanceSchema, CreditGrant, EntryTypeSchema, entryToWire, grantToWire, LedgerEntry, TopUpSettings, TopUpSettingsBody, topUpToWire,
} from './schemas.js';

const Customer = { id_or_alias: Type.String({ description: 'customer ID or alias' }) };
const CustomerParams = Type.Object(Customer);
const GrantParams = Type.Object({ ...Customer, grant_id: Type.String() });
const BASE = '/api/v1/customers/:id_or_alias';

const RULES =
  'Grants are consumed at invoice finalization in priority order (1 first), then soonest expiry, each paying the lines it applies to, tax included (after tax), ' +
  'before the customer\'s cash balance and before the charge; one deduction line per grant shows on the invoice (`prepaid_credit_lines`). ' +
  'A grant pays invoices finalized while it is in force (effective_at <= finalization < expires_at).';

export function creditRoutes(service: CreditsService) {
  return (app: App) => {
    const tags = ['Credits'];

    app.post(`${BASE}/credit-grants`, {
      schema: {
        tags,
        operationId: 'create_credit_grant',
        summary: 'Grant prepaid credits to a customer',
        description:
          'Gives exactly one of `amount` (in the customer\'s currency) or `credit_unit` (units at a rate, valued once, rounded to the currency\'s minor unit). ' +
          'PROMOTIONAL grants are usable at once (a GRANT ledger entry). PAID grants are sold on a one-off invoice, finalized now and charged when the customer has ' +
          'auto_charge and a card; the grant stays PENDING_PAYMENT, outside the balance, until that invoice is PAID (voiding the invoice voids the grant). ' +
          `${RULES} Events \`credit_grant.created\`, \`credit_grant.activated\`. Send an \`Idempotency-Key\` so a retry does not grant twice.`,
        params: CustomerParams,
        body: documented(CreateGrantBody, 'The grant.', ex.createGrantExample),
        response: { 201: documented(CreditGrant, 'The grant as created (a PAID grant: PENDING_PAYMENT, with its invoice).', { ...ex.grantExample, status: 'PENDING_PAYMENT', remaining: '0.00' }), ...errorResponses([400, 401, 404]) },
      },
    }, async (request, reply) => {
      const grant = await service.createGrant(authOf(request).tenantId, request.params.id_or_alias, request.body);
      return reply.code(201).send(grantToWire(grant));
    });

    app.get(`${BASE}/credit-grants`, {
      schema: {
        tags,
        operationId: 'list_credit_grants',
        summary: 'List a customer\'s credit grants',
        description: 'Newest first, each with what is left of it (`remaining`, its ledger sum). Filter by `status`. Paged: `page` from 0, `per_page` 1 to 100 (default 10).',
        params: CustomerParams,
        querystring: Type.Object({ status: Type.Optional(Type.Union([Type.Literal('PENDING_PAYMENT'), Type.Literal('ACTIVE'), Type.Literal('VOID')])), ...PageQuery }),
        response: { 200: documented(listResponse(CreditGrant), 'One page of grants.', examplePage([ex.grantExample])), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => {
      const page = await service.listGrants(authOf(request).tenantId, request.params.id_or_alias, request.query);
      return { data: page.data.map(grantToWire), pagination_meta: page.pagination_meta };
    });

    app.get(`${BASE}/credit-grants/:grant_id`, {
      schema: {
        tags,
        operationId: 'get_credit_grant',
        summary: 'Get a credit grant',
        description: 'One grant of the customer with what is left of it (`remaining`, its ledger sum). Another customer\'s or tenant\'s grant is a 404.',
        params: GrantParams,
        response: { 200: documented(CreditGrant, 'The grant.', ex.grantExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => grantToWire(await service.getGrant(authOf(request).tenantId, request.params.id_or_alias, request.params.grant_id)));

    app.post(`${BASE}/credit-grants/:grant_id/void`, {
      schema: {
        tags,
        operationId: 'void_credit_grant',
        summary: 'Void a credit grant',
        description:
          'What is left of an ACTIVE grant leaves the balance (a VOID ledger entry); what it already paid stays paid. A PENDING_PAYMENT grant is dropped; its invoice ' +
          'stays as it is (void it separately). A VOID grant is a 409. Event `credit_grant.voided`.',
        params: GrantParams,
        response: { 200: documented(CreditGrant, 'The grant, VOID.', { ...ex.grantExample, status: 'VOID', remaining: '0.00', voided_at: '2026-05-01T00:00:00.000Z' }), ...errorResponses([401, 404, 409]) },
      },
    }, async (request) => grantToWire(await service.voidGrant(authOf(request).tenantId, request.params.id_or_alias, request.params.grant_id)));

    app.get(`${BASE}/credit-ledger`, {
      schema: {
        tags,
        operationId: 'list_credit_ledger_entries',
        summary: 'List a customer\'s credit ledger entries',
        description:
          'The append-only ledger, newest first: GRANT (+), CONSUMPTION (-, one per grant and invoice line paid), EXPIRY (- what was left at `expires_at`), ' +
          'VOID (- what was left when voided) and REFUND (+ what a voided invoice had consumed). The balance is their sum. Filter by `grant_id` and `type`. Paged.',
        params: CustomerParams,
        querystring: Type.Object({ grant_id: Type.Optional(Type.String()), type: Type.Optional(EntryTypeSchema), ...PageQuery }),
        response: { 200: documented(listResponse(LedgerEntry), 'One page of ledger entries, newest first.', examplePage([ex.entryExample])), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => {
      const page = await service.listEntries(authOf(request).tenantId, request.params.id_or_alias, request.query);
      return { data: page.data.map(entryToWire), pagination_meta: page.pagination_meta };
    });

    app.get(`${BASE}/credit-balance`, {
      schema: {
        tags,
        operationId: 'get_credit_balance',
        summary: 'The live prepaid credit balance of a customer',
        description:
          '`balance` is the sum of the ledger now (expiries due are recorded first). `projected_balance` is that less `accrued_usage`: the usage charges, tax included, ' +
          'of the upcoming invoices of the customer\'s live subscriptions, computed as `GET /api/v1/subscriptions/{id}/upcoming-invoice` computes them, so it follows ' +
          'usage as soon as it is ingested. Separate from the customer\'s cash `balance` (`GET /api/v1/customers/{id}`).',
        params: CustomerParams,
        response: { 200: documented(CreditBalanceSchema, 'The balance and the projected balance.', ex.balanceExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => {
      const result = await service.balance(authOf(request).tenantId, request.params.id_or_alias);
      return balanceToWire(result.customerId, result, result.at);
    });

    app.get(`${BASE}/credit-top-up`, {
      schema: {
        tags,
        operationId: 'get_credit_top_up',
        summary: 'The automatic top-up of a customer',
        description: 'The settings `PUT .../credit-top-up` stored; a customer without them is a 404.',
        params: CustomerParams,
        response: { 200: documented(TopUpSettings, 'The settings.', ex.topUpExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => topUpToWire(await service.getTopUpSettings(authOf(request).tenantId, request.params.id_or_alias)));

    app.put(`${BASE}/credit-top-up`, {
      schema: {
        tags,
        operationId: 'set_credit_top_up',
        summary: 'Set the automatic top-up of a customer',
        description:
          'When enabled and the balance falls below `threshold`, a PAID grant of `amount` (source AUTO_TOP_UP) is bought as `POST .../credit-grants` buys one: invoiced and ' +
          'charged. Checked after each consumption, expiry and void, and at once when set. One top-up at a time: none is bought while one waits for payment, and a check ' +
          'replayed at the same ledger position finds the top-up it bought. Amounts in the customer\'s currency.',
        params: CustomerParams,
        body: documented(TopUpSettingsBody, 'The settings.', ex.topUpBodyExample),
        response: { 200: documented(TopUpSettings, 'The settings as stored.', ex.topUpExample), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => topUpToWire(await service.putTopUpSettings(authOf(request).tenantId, request.params.id_or_alias, request.body)));
  };
}
