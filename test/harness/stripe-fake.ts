// A Stripe-compatible fake API on loopback, for tests that drive the real `stripe` SDK
// (docs/payments.md, "The Stripe fake"). It implements only the endpoints the adapter calls,
// with Stripe's object and error shapes (API version STRIPE_API_VERSION), idempotency replay,
// and webhooks signed with the SDK's own test-header helper.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { STRIPE_API_VERSION } from '../../src/adapters/payments/stripe.js';

/** Stripe's test PaymentMethod ids the fake knows, and how their off-session charges end. */
const TEST_METHODS: Record<string, { last4: string; brand: string; outcome: 'succeeds' | 'declined' | 'requires_action' }> = {
  pm_card_visa: { last4: '4242', brand: 'visa', outcome: 'succeeds' },
  pm_card_mastercard: { last4: '4444', brand: 'mastercard', outcome: 'succeeds' },
  // 4000000000000341: attaches, then every charge is declined
  pm_card_chargeCustomerFail: { last4: '0341', brand: 'visa', outcome: 'declined' },
  // 4000002760003184: every payment needs 3-D Secure, so off-session charges fail with authentication_required
  pm_card_authenticationRequired: { last4: '3184', brand: 'visa', outcome: 'requires_action' },
};

/**
 * Stripe's SEPA Direct Debit test IBANs the fake knows (https://docs.stripe.com/testing#sepa-direct-debit):
 * every debit answers `processing`; `settle()` then ends it as Stripe would days later.
 */
const TEST_IBANS: Record<string, 'succeeds' | 'fails'> = {
  DE89370400440532013000: 'succeeds',
  AT611904300234573201: 'succeeds',
  AT861904300235473202: 'fails',
};

type Json = Record<string, unknown>;
const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;

/** Stripe's form encoding, one level of brackets deep (`metadata[attempt_id]=...`), as the SDK sends it. */
function parseForm(text: string): Json {
  const out: Json = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const match = /^([^[]+)\[([^\]]*)\]$/.exec(key);
    if (match) ((out[match[1]!] as Json | undefined) ?? (out[match[1]!] = {}) as Json)[match[2]!] = value;
    else out[key] = value;
  }
  return out;
}

export interface StripeFake {
  apiBase: string;
  /** PaymentIntents created (idempotent replays do not count): what was really charged. */
  charges: number;
  /** Refunds created (idempotent replays do not count): what was really given back. */
  refunds: number;
  /** Requests seen, `METHOD /path`, in order. */
  requests: string[];
  /** Secret keys the fake accepts; others answer 401 like Stripe. */
  keys: Set<string>;
  paymentIntent(id: string): Json | undefined;
  /** The PaymentIntent whose metadata names this attempt of ours. */
  intentForAttempt(attemptId: string): string | undefined;
  /**
   * Ends a `processing` SEPA debit as its test IBAN says (succeeded, or requires_payment_method with
   * insufficient_funds) and returns the webhook type Stripe sends for it.
   */
  settle(paymentIntentId: string): 'payment_intent.succeeded' | 'payment_intent.payment_failed';
  /** The last setup_intents request's form fields, as sent (to check mandate_data). */
  lastSetupParams: Json | null;
  /** A webhook about a PaymentIntent as Stripe would send it (its current state), signed with `secret`. */
  signedEvent(secret: string, eventId: string, type: string, paymentIntentId: string): { body: string; headers: Record<string, string> };
  close(): Promise<void>;
}

export async function startStripeFake(): Promise<StripeFake> {
  const customers = new Map<string, Json>();
  const methods = new Map<string, Json & { outcome: string }>();
  const intents = new Map<string, Json>();
  const refunds = new Map<string, Json>();
  const mandates = new Map<string, Json>();
  const idempotency = new Map<string, { params: string; status: number; body: Json }>();
  const fake = { charges: 0, refunds: 0, requests: [] as string[], keys: new Set<string>(), lastSetupParams: null as Json | null };
  const now = () => Math.floor(Date.now() / 1000);

  const error = (status: number, body: Json) => ({ status, body: { error: body } });
  const invalid = (message: string, param?: string) => error(400, { type: 'invalid_request_error', message, ...(param ? { param } : {}) });

  function handle(method: string, path: string, params: Json): { status: number; body: Json } {
    const segments = path.split('/').filter(Boolean); // ['v1', resource, id?]
    const [, resource, objectId] = segments;
    if (method === 'GET' && resource === 'balance') return { status: 200, body: { object: 'balance', available: [{ amount: 0, currency: 'eur' }], pending: [], livemode: false } };
    if (method === 'POST' && resource === 'customers') {
      const customer = { id: id('cus'), object: 'customer', name: params.name ?? null, email: params.email ?? null, metadata: params.metadata ?? {}, created: now(), livemode: false };
      customers.set(customer.id, customer);
      return { status: 200, body: customer };
    }
    if (method === 'POST' && resource === 'payment_methods' && !objectId) {
      if (params.type !== 'sepa_debit') return invalid(`The fake creates only sepa_debit PaymentMethods, got '${params.type}'`, 'type');
      const iban = String((params.sepa_debit as Json | undefined)?.iban ?? '');
      const outcome = TEST_IBANS[iban];
      if (!outcome) return error(400, { type: 'invalid_request_error', code: 'invalid_bank_account_iban', param: 'sepa_debit[iban]', message: 'The IBAN you provided appears to be invalid.' });
      const billing = (params.billing_details ?? {}) as Json;
      for (const field of ['name', 'email']) {
        if (!billing[field]) return error(400, { type: 'invalid_request_error', code: 'parameter_missing', param: `billing_details[${field}]`, message: `Missing required param: billing_details[${field}].` });
      }
      const pm = { id: id('pm'), object: 'payment_method', type: 'sepa_debit', customer: null as unknown, created: now(), livemode: false, outcome,
        billing_details: { name: billing.name, email: billing.email, address: null, phone: null },
        sepa_debit: { bank_code: iban.slice(4, 9), branch_code: '', country: iban.slice(0, 2), fingerprint: id('fp'), generated_from: null, last4: iban.slice(-4) } };
      methods.set(pm.id, pm);
      const { outcome: _outcome, ...wire } = pm;
      return { status: 200, body: wire };
    }
    if (method === 'GET' && resource === 'mandates' && objectId) {
      const mandate = mandates.get(objectId);
      return mandate ? { status: 200, body: mandate } : invalid(`No such mandate: '${objectId}'`);
    }
    if (method === 'POST' && resource === 'setup_intents' && methods.get(String(params.payment_method))?.type === 'sepa_debit') {
      fake.lastSetupParams = params;
      const pm = methods.get(String(params.payment_method))!;
      if (!customers.has(String(params.customer))) return invalid(`No such customer: '${params.customer}'`, 'customer');
      // Stripe refuses to confirm a SEPA setup without the mandate's acceptance
      if (!params['mandate_data[customer_acceptance][type]']) return invalid('mandate_data is required to confirm a sepa_debit SetupIntent', 'mandate_data');
      pm.customer = params.customer;
      const mandate = { id: id('mandate'), object: 'mandate', status: 'active', type: 'multi_use', multi_use: {}, livemode: false, payment_method: pm.id,
        customer_acceptance: { type: params['mandate_data[customer_acceptance][type]'], accepted_at: now(), offline: {} },
        payment_method_details: { type: 'sepa_debit', sepa_debit: { reference: `FAKE${randomBytes(6).toString('hex').toUpperCase()}`, url: 'https://payments.stripe.com/sepa_debit/mandate/fake' } } };
      mandates.set(mandate.id, mandate);
      return { status: 200, body: { id: id('seti'), object: 'setup_intent', status: 'succeeded', customer: params.customer, payment_method: pm.id, mandate: mandate.id, usage: params.usage ?? 'off_session', created: now(), livemode: false } };
    }
    if (method === 'POST' && resource === 'setup_intents') {
      const test = TEST_METHODS[String(params.payment_method)];
      if (!customers.has(String(params.customer))) return invalid(`No such customer: '${params.customer}'`, 'customer');
      if (!test) return invalid(`No such PaymentMethod: '${params.payment_method}'`, 'payment_method');
      const pm = { id: id('pm'), object: 'payment_method', type: 'card', customer: params.customer, created: now(), livemode: false, outcome: test.outcome,
        card: { brand: test.brand, last4: test.last4, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, funding: 'credit', country: 'US' } };
      methods.set(pm.id, pm);
      return { status: 200, body: { id: id('seti'), object: 'setup_intent', status: 'succeeded', customer: params.customer, payment_method: pm.id, usage: params.usage ?? 'off_session', created: now(), livemode: false } };
    }
    if (method === 'GET' && resource === 'payment_methods' && objectId) {
      const pm = methods.get(objectId);
      if (!pm) return invalid(`No such PaymentMethod: '${objectId}'`);
      const { outcome: _outcome, ...wire } = pm;
      return { status: 200, body: wire };
    }
    if (method === 'POST' && resource === 'payment_intents' && !objectId) {
      const pm = methods.get(String(params.payment_method));
      if (!pm || pm.customer !== params.customer) return invalid(`No such PaymentMethod: '${params.payment_method}'`, 'payment_method');
      fake.charges += 1;
      const intent: Json = {
        id: id('pi'), object: 'payment_intent', amount: Number(params.amount), amount_received: 0, currency: params.currency, customer: params.customer,
        payment_method: pm.id, description: params.description ?? null, metadata: params.metadata ?? {}, confirmation_method: 'automatic', capture_method: 'automatic',
        created: now(), livemode: false, last_payment_error: null, latest_charge: null, status: 'succeeded',
      };
      if (pm.type === 'sepa_debit') {
        // a SEPA debit is only made when the request allows it by name, as Stripe requires
        if ((params.allowed_payment_method_types as Json | undefined)?.['0'] !== 'sepa_debit') {
          fake.charges -= 1;
          return invalid(`The PaymentMethod provided (sepa_debit) is not allowed for this PaymentIntent.`, 'allowed_payment_method_types');
        }
        intent.status = 'processing';
        intent.outcome = pm.outcome;
        intents.set(String(intent.id), intent);
        const { outcome: _outcome, ...wire } = intent;
        return { status: 200, body: wire };
      }
      if (pm.outcome === 'succeeds') {
        intent.amount_received = intent.amount;
        intent.latest_charge = id('ch');
        intents.set(String(intent.id), intent);
        return { status: 200, body: intent };
      }
      const declined = pm.outcome === 'declined';
      const lastError = declined
        ? { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.', payment_method: { id: pm.id, object: 'payment_method' } }
        : { type: 'card_error', code: 'authentication_required', decline_code: 'authentication_required', message: 'Your card was declined. This transaction requires authentication.', payment_method: { id: pm.id, object: 'payment_method' } };
      Object.assign(intent, { status: 'requires_payment_method', last_payment_error: lastError });
      intents.set(String(intent.id), intent);
      return error(402, { ...lastError, payment_intent: intent, request_log_url: 'https://dashboard.stripe.com/test/logs/req_fake' });
    }
    if (method === 'GET' && resource === 'payment_intents' && objectId) {
      const intent = intents.get(objectId);
      if (!intent) return invalid(`No such payment_intent: '${objectId}'`);
      const { outcome: _outcome, ...wire } = intent;
      return { status: 200, body: wire };
    }
    if (method === 'POST' && resource === 'refunds') {
      const intent = intents.get(String(params.payment_intent));
      if (!intent || intent.status !== 'succeeded') return invalid(`No such payment_intent: '${params.payment_intent}'`, 'payment_intent');
      const already = [...refunds.values()].filter((r) => r.payment_intent === intent.id).reduce((sum, r) => sum + Number(r.amount), 0);
      const amount = params.amount === undefined ? Number(intent.amount) - already : Number(params.amount);
      if (already + amount > Number(intent.amount)) {
        return error(400, { type: 'invalid_request_error', code: 'amount_too_large', param: 'amount', message: `Refund amount (${amount}) is greater than unrefunded amount on charge (${Number(intent.amount) - already})` });
      }
      // a SEPA refund is a credit transfer the bank sends later: Stripe answers it pending
      const refund = { id: id('re'), object: 'refund', amount, currency: intent.currency, payment_intent: intent.id, status: methods.get(String(intent.payment_method))?.type === 'sepa_debit' ? 'pending' : 'succeeded', created: now() };
      refunds.set(refund.id, refund);
      fake.refunds += 1;
      return { status: 200, body: refund };
    }
    return error(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` });
  }

  async function onRequest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of request) text += String(chunk);
    const url = new URL(request.url ?? '/', 'http://fake');
    const method = request.method ?? 'GET';
    fake.requests.push(`${method} ${url.pathname}`);
    const send = (status: number, body: Json, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req'), 'stripe-version': String(request.headers['stripe-version'] ?? STRIPE_API_VERSION), ...headers });
      response.end(JSON.stringify(body));
    };
    const key = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
    if (!key || !fake.keys.has(key)) {
      send(401, { error: { type: 'invalid_request_error', message: `Invalid API Key provided: ${key ? `${key.slice(0, 8)}****${key.slice(-4)}` : '(none)'}` } });
      return;
    }
    const idempotencyKey = method === 'POST' ? request.headers['idempotency-key'] : undefined;
    if (typeof idempotencyKey === 'string') {
      // Stripe keys idempotency per account: the same key with other parameters is an error, the same request a replay
      const scopeKey = `${key}:${idempotencyKey}`;
      const seen = idempotency.get(scopeKey);
      if (seen && seen.params !== `${url.pathname}?${text}`) {
        send(400, { error: { type: 'idempotency_error', message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.` } });
        return;
      }
      if (seen) {
        send(seen.status, seen.body, { 'idempotent-replayed': 'true', 'original-request': 'req_fake' });
        return;
      }
      const answer = handle(method, url.pathname, parseForm(text));
      idempotency.set(scopeKey, { params: `${url.pathname}?${text}`, ...answer });
      send(answer.status, answer.body);
      return;
    }
    const answer = handle(method, url.pathname, method === 'GET' ? Object.fromEntries(url.searchParams) : parseForm(text));
    send(answer.status, answer.body);
  }

  const server: Server = createServer((request, response) => {
    onRequest(request, response).catch((failure: unknown) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { type: 'api_error', message: String(failure) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const signer = new Stripe('sk_test_fake_signer', { host: '127.0.0.1', port, protocol: 'http' });

  return Object.assign(fake, {
    apiBase: `http://127.0.0.1:${port}`,
    paymentIntent: (piId: string) => intents.get(piId),
    intentForAttempt: (attemptId: string) => [...intents.values()].find((pi) => (pi.metadata as Json).attempt_id === attemptId)?.id as string | undefined,
    settle(paymentIntentId: string) {
      const intent = intents.get(paymentIntentId);
      if (!intent || intent.status !== 'processing') throw new Error(`fake: no processing PaymentIntent ${paymentIntentId}`);
      if (intent.outcome === 'succeeds') {
        Object.assign(intent, { status: 'succeeded', amount_received: intent.amount, latest_charge: id('py') });
        return 'payment_intent.succeeded' as const;
      }
      Object.assign(intent, { status: 'requires_payment_method', last_payment_error: {
        type: 'invalid_request_error', code: 'insufficient_funds', message: 'The customer\'s account has insufficient funds to cover this payment.', payment_method: { id: intent.payment_method, object: 'payment_method' },
      } });
      return 'payment_intent.payment_failed' as const;
    },
    signedEvent(secret: string, eventId: string, type: string, paymentIntentId: string) {
      const stored = intents.get(paymentIntentId);
      if (!stored) throw new Error(`fake: no PaymentIntent ${paymentIntentId}`);
      const { outcome: _outcome, ...intent } = stored;
      const body = JSON.stringify({
        id: eventId, object: 'event', api_version: STRIPE_API_VERSION, created: now(), type, livemode: false, pending_webhooks: 1,
        request: { id: null, idempotency_key: null }, data: { object: intent },
      }, null, 2);
      return { body, headers: { 'content-type': 'application/json', 'stripe-signature': signer.webhooks.generateTestHeaderString({ payload: body, secret }) } };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
