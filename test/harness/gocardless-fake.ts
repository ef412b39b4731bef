// A GoCardless-compatible fake API on loopback, for tests that drive the real `gocardless-nodejs`
// SDK (docs/payments.md, "The GoCardless fake"). It implements only the endpoints the adapter
// calls, with GoCardless's envelopes (`{"payments": {...}}`), error objects and Idempotency-Key
// conflicts (API version GOCARDLESS_API_VERSION). Payments stay `pending_submission` until a test
// moves them on (`advance`, GoCardless's scenario simulators in spirit); webhooks are signed as
// GoCardless signs them: hex HMAC-SHA256 of the body under the endpoint secret in `Webhook-Signature`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHmac, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { GOCARDLESS_API_VERSION } from '../../src/adapters/payments/gocardless.js';

type Json = Record<string, unknown>;
const newId = (prefix: string) => `${prefix}${randomBytes(7).toString('hex').toUpperCase()}`;
const DOCS = 'https://developer.gocardless.com/api-reference#';

/** ISO 13616 check digits (mod 97), as GoCardless validates an IBAN. */
function ibanIsValid(iban: string): boolean {
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const digits = (iban.slice(4) + iban.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rest = 0;
  for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  return rest === 1;
}

/** Where a payment may be moved by a test, and the event GoCardless would emit for it. */
export type PaymentAdvance = 'submitted' | 'confirmed' | 'paid_out' | 'failed' | 'charged_back';
/** Mandate events after which GoCardless refuses payments on the mandate. */
export type MandateEnd = 'cancelled' | 'expired' | 'failed';
/** A chargeback's details: the cause and SEPA reason code are the fake's choice (MD06: refund requested by the payer). */
const CHARGEBACK_DETAILS = {
  origin: 'bank', cause: 'refund_requested', scheme: 'sepa_core', reason_code: 'MD06',
  description: 'The customer asked their bank to refund this payment.',
};
const FAILURE_DETAILS = {
  origin: 'bank', cause: 'insufficient_funds', scheme: 'sepa_core', reason_code: 'AM04', will_attempt_retry: false,
  description: 'The customer\'s account had insufficient funds to make this payment.',
};

export interface GoCardlessFake {
  apiBase: string;
  /** Payments created (idempotent conflicts do not count): what was really collected. */
  payments: number;
  /** Requests seen, `METHOD /path`, in order. */
  requests: string[];
  /** Access tokens the fake accepts; others answer 401 like GoCardless. */
  tokens: Set<string>;
  payment(id: string): Json | undefined;
  /** The payment whose metadata names this attempt of ours. */
  paymentForAttempt(attemptId: string): string | undefined;
  /** Moves a payment on as the banks would and returns the event GoCardless records for it. */
  advance(paymentId: string, to: PaymentAdvance): Json;
  /** Ends a mandate (the payer cancelled it, it expired or failed) and returns the mandate event. */
  endMandate(mandateId: string, action: MandateEnd): Json;
  /** A webhook delivery of these events, signed with `secret`. */
  signedWebhook(secret: string, events: Json[]): { body: string; headers: Record<string, string> };
  close(): Promise<void>;
}

export async function startGoCardlessFake(): Promise<GoCardlessFake> {
  const store = { customers: new Map<string, Json>(), customer_bank_accounts: new Map<string, Json>(), mandates: new Map<string, Json>(), payments: new Map<string, Json>(), refunds: new Map<string, Json>() };
  const events: Json[] = [];
  const idempotency = new Map<string, string>();
  const fake = { payments: 0, requests: [] as string[], tokens: new Set<string>() };
  const now = () => new Date().toISOString();

  const error = (code: number, type: string, message: string, errors: Json[]) => ({
    status: code,
    body: { error: { message, documentation_url: `${DOCS}api-usage-errors`, type, request_id: newId('RQ'), code, errors } },
  });
  const validationFailed = (field: string, message: string) =>
    error(422, 'validation_failed', 'Validation failed', [{ field, message, request_pointer: `/${field}` }]);
  const notFound = (resource: string, id: string) =>
    error(404, 'invalid_api_usage', 'Resource not found', [{ reason: 'resource_not_found', message: `${resource} ${id} not found` }]);
  const ok = (key: string, object: Json, status = 200) => ({ status, body: { [key]: object } });
  const list = (key: string, items: Json[]) => ({ status: 200, body: { [key]: items, meta: { cursors: { before: null, after: null }, limit: 50 } } });

  function record(resourceType: string, action: string, links: Json, details: Json = { origin: 'gocardless', cause: action, description: `The ${resourceType.slice(0, -1)} is ${action}.` }) {
    const event = { id: newId('EV'), created_at: now(), resource_type: resourceType, action, links, details, metadata: {} };
    events.push(event);
    return event;
  }

  function create(resource: string, params: Json): { status: number; body: Json } {
    const links = (params.links ?? {}) as Record<string, string>;
    if (resource === 'customers') {
      const customer = { id: newId('CU'), created_at: now(), email: params.email ?? null, given_name: params.given_name ?? null, family_name: params.family_name ?? null, company_name: params.company_name ?? null, metadata: params.metadata ?? {} };
      store.customers.set(customer.id, customer);
      return ok('customers', customer, 201);
    }
    if (resource === 'customer_bank_accounts') {
      if (!store.customers.has(links.customer ?? '')) return validationFailed('links/customer', 'must be a customer of this creditor');
      const iban = String(params.iban ?? '');
      if (!ibanIsValid(iban)) return validationFailed('iban', 'is invalid');
      if (!params.account_holder_name) return validationFailed('account_holder_name', 'is required');
      const country = iban.slice(0, 2);
      const account = {
        id: newId('BA'), created_at: now(), account_holder_name: params.account_holder_name, account_number_ending: iban.slice(-2), country_code: country,
        currency: country === 'GB' ? 'GBP' : 'EUR', bank_name: country === 'GB' ? 'BARCLAYS BANK PLC' : 'COMMERZBANK AG', enabled: true, metadata: params.metadata ?? {}, links: { customer: links.customer },
      };
      store.customer_bank_accounts.set(account.id, account);
      return ok('customer_bank_accounts', account, 201);
    }
    if (resource === 'mandates') {
      const account = store.customer_bank_accounts.get(links.customer_bank_account ?? '');
      if (!account) return validationFailed('links/customer_bank_account', 'must be a bank account of this creditor');
      const mandate = {
        id: newId('MD'), created_at: now(), reference: `REF-${randomBytes(3).toString('hex').toUpperCase()}`, scheme: account.currency === 'GBP' ? 'bacs' : 'sepa_core', status: 'pending_submission',
        next_possible_charge_date: now().slice(0, 10), metadata: params.metadata ?? {}, links: { customer_bank_account: account.id, creditor: 'CR000FAKE', customer: (account.links as Json).customer },
      };
      store.mandates.set(mandate.id, mandate);
      return ok('mandates', mandate, 201);
    }
    if (resource === 'payments') {
      const mandate = store.mandates.get(links.mandate ?? '');
      if (!mandate) return validationFailed('links/mandate', 'must be a mandate of this creditor');
      if (['cancelled', 'expired', 'failed'].includes(String(mandate.status))) {
        return error(422, 'invalid_state', 'Mandate is inactive', [{ reason: 'mandate_is_inactive', message: `Mandate is ${String(mandate.status)}` }]);
      }
      const expected = mandate.scheme === 'bacs' ? 'GBP' : 'EUR';
      if (params.currency !== expected) return validationFailed('currency', `must be ${expected} for a ${mandate.scheme} mandate`);
      if (!Number.isInteger(params.amount) || Number(params.amount) < 1) return validationFailed('amount', 'must be a positive integer in the currency\'s minor unit');
      fake.payments += 1;
      const payment = {
        id: newId('PM'), created_at: now(), charge_date: now().slice(0, 10), amount: params.amount, amount_refunded: 0, currency: params.currency, description: params.description ?? null,
        reference: null, retry_if_possible: false, scheme: mandate.scheme, status: 'pending_submission', metadata: params.metadata ?? {}, links: { mandate: mandate.id, creditor: 'CR000FAKE' },
      };
      store.payments.set(payment.id, payment);
      record('payments', 'created', { payment: payment.id });
      return ok('payments', payment, 201);
    }
    if (resource === 'refunds') {
      const payment = store.payments.get(links.payment ?? '');
      if (!payment) return validationFailed('links/payment', 'must be a payment of this creditor');
      if (!['confirmed', 'paid_out'].includes(String(payment.status))) {
        return error(422, 'invalid_state', 'Refunds can only be created for collected payments', [{ reason: 'payment_not_collected', message: `the payment is ${payment.status}` }]);
      }
      const amount = Number(params.amount);
      const total = Number(payment.amount_refunded) + amount;
      if (params.total_amount_confirmation !== total) return validationFailed('total_amount_confirmation', `must be ${total}, the total refunded including this refund`);
      if (total > Number(payment.amount)) return validationFailed('amount', `must not exceed the amount left to refund (${Number(payment.amount) - Number(payment.amount_refunded)})`);
      payment.amount_refunded = total;
      const refund = { id: newId('RF'), created_at: now(), amount, currency: payment.currency, reference: null, status: 'created', metadata: params.metadata ?? {}, links: { payment: payment.id } };
      store.refunds.set(refund.id, refund);
      return ok('refunds', refund, 201);
    }
    return error(404, 'invalid_api_usage', 'Resource not found', [{ reason: 'path_not_found', message: `no such path /${resource}` }]);
  }

  function read(resource: string, id: string | undefined, query: URLSearchParams): { status: number; body: Json } {
    if (resource === 'creditors' && !id) return list('creditors', [{ id: 'CR000FAKE', name: 'Fake Creditor Ltd', created_at: now() }]);
    if (resource === 'events' && !id) {
      const matching = events.filter((e) => (!query.get('payment') || (e.links as Json).payment === query.get('payment')) && (!query.get('action') || e.action === query.get('action')));
      return list('events', matching.reverse().slice(0, Number(query.get('limit') ?? 50)));
    }
    if (resource === 'refunds' && !id) return list('refunds', [...store.refunds.values()].filter((r) => (r.links as Json).payment === query.get('payment')));
    const table = store[resource as keyof typeof store] as Map<string, Json> | undefined;
    if (!table || !id) return error(404, 'invalid_api_usage', 'Resource not found', [{ reason: 'path_not_found', message: `no such path /${resource}` }]);
    const object = table.get(id);
    return object ? ok(resource, object) : notFound(resource, id);
  }

  async function onRequest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of request) text += String(chunk);
    const url = new URL(request.url ?? '/', 'http://fake');
    const method = request.method ?? 'GET';
    fake.requests.push(`${method} ${url.pathname}`);
    const send = ({ status, body }: { status: number; body: Json }) => {
      response.writeHead(status, { 'content-type': 'application/json', 'x-request-id': newId('RQ') });
      response.end(JSON.stringify(body));
    };
    const token = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
    if (!token || !fake.tokens.has(token)) {
      send(error(401, 'invalid_api_usage', 'Invalid access token', [{ reason: 'unauthorized', message: 'Invalid access token' }]));
      return;
    }
    if (request.headers['gocardless-version'] !== GOCARDLESS_API_VERSION) {
      send(error(400, 'invalid_api_usage', 'GoCardless-Version header missing or unknown', [{ reason: 'version_not_found', message: 'unknown GoCardless-Version' }]));
      return;
    }
    const [resource, id] = url.pathname.split('/').filter(Boolean);
    if (method !== 'POST') {
      send(read(resource ?? '', id, url.searchParams));
      return;
    }
    const key = request.headers['idempotency-key'];
    const scoped = `${token}:${resource}:${String(key)}`;
    const earlier = typeof key === 'string' ? idempotency.get(scoped) : undefined;
    if (earlier) {
      // GoCardless answers a repeated key with a conflict naming what the first request created
      send(error(409, 'invalid_state', 'A resource has already been created with this idempotency key', [
        { reason: 'idempotent_creation_conflict', message: 'A resource has already been created with this idempotency key', links: { conflicting_resource_id: earlier } },
      ]));
      return;
    }
    const params = ((JSON.parse(text || '{}') as Json)[resource ?? ''] ?? {}) as Json;
    const answer = create(resource ?? '', params);
    const created = (answer.body[resource ?? ''] as Json | undefined)?.id;
    if (typeof key === 'string' && typeof created === 'string') idempotency.set(scoped, created);
    send(answer);
  }

  const server: Server = createServer((request, response) => {
    onRequest(request, response).catch((failure: unknown) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { type: 'gocardless', code: 500, message: String(failure), errors: [] } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return Object.assign(fake, {
    apiBase: `http://127.0.0.1:${port}`,
    payment: (paymentId: string) => store.payments.get(paymentId),
    paymentForAttempt: (attemptId: string) => [...store.payments.values()].find((p) => (p.metadata as Json).attempt_id === attemptId)?.id as string | undefined,
    advance(paymentId: string, to: PaymentAdvance) {
      const payment = store.payments.get(paymentId);
      if (!payment) throw new Error(`fake: no payment ${paymentId}`);
      payment.status = to;
      const details = to === 'failed' ? { ...FAILURE_DETAILS, scheme: payment.scheme } : to === 'charged_back' ? { ...CHARGEBACK_DETAILS, scheme: payment.scheme } : undefined;
      return record('payments', to, { payment: paymentId }, details);
    },
    endMandate(mandateId: string, action: MandateEnd) {
      const mandate = store.mandates.get(mandateId);
      if (!mandate) throw new Error(`fake: no mandate ${mandateId}`);
      mandate.status = action;
      return record('mandates', action, { mandate: mandateId });
    },
    signedWebhook(secret: string, delivered: Json[]) {
      const body = JSON.stringify({ events: delivered, meta: { webhook_id: newId('WB') } });
      return { body, headers: { 'content-type': 'application/json', 'webhook-signature': createHmac('sha256', secret).update(body).digest('hex') } };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
