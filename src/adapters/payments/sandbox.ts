// The built-in sandbox provider (docs/payments.md, "Sandbox provider"): no account, no network.
// Test card numbers behave as listed in SANDBOX_CARDS. Every answer is a function of the request
// and the clock, and ids are derived from the idempotency key, so a replayed request (after a
// restart too) returns the same payment and nothing is ever "charged" twice.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../kernel/clock.js';
import {
  WebhookSignatureError,
  type ChargeRequest, type PaymentProvider, type ProviderEvent, type ProviderPayment, type ProviderRefund, type SetupResult,
} from './provider.js';

/** How each test card behaves when charged off-session. Every card saves without trouble. */
export const SANDBOX_CARDS = {
  '4242424242424242': { outcome: 'succeeds', brand: 'visa' },
  '4000000000000002': { outcome: 'declined', brand: 'visa' },
  '4000002500003155': { outcome: 'requires_action', brand: 'visa' },
  '4000000000000077': { outcome: 'delayed', brand: 'visa' },
  '5555555555554444': { outcome: 'succeeds', brand: 'mastercard' },
} as const;
type Outcome = (typeof SANDBOX_CARDS)[keyof typeof SANDBOX_CARDS]['outcome'];

/** The delayed card's charge stays PENDING this long (on the service clock), then succeeds. */
export const SANDBOX_DELAY_MS = 60_000;
/** The sandbox signs its webhooks with this fixed secret (there is no account to hold one). */
export const SANDBOX_WEBHOOK_SECRET = 'whsec_sandbox';
export const SANDBOX_SIGNATURE_HEADER = 'x-sandbox-signature';

const OUTCOME_CODE: Record<Outcome, string> = { succeeds: 's', declined: 'd', requires_action: 'a', delayed: 'l' };
const CODE_OUTCOME = Object.fromEntries(Object.entries(OUTCOME_CODE).map(([k, v]) => [v, k])) as Record<string, Outcome>;

/**
 * A payment that needed authentication, once the customer went through the sandbox's
 * authentication page: its id with this outcome letter instead of `a` (the sandbox keeps no state,
 * the id says what a lookup answers), so the payment is looked up and refunded as settled.
 */
const AUTHENTICATED = 'u';
const AUTHENTICATION_FAILED = 'f';

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/** Payment ids carry what the sandbox needs to answer a lookup: outcome, ready time, amount, currency. */
function paymentId(outcome: Outcome, readyAtMs: number, amountMinor: bigint, currency: string, key: string): string {
  return `pi_sbx_${OUTCOME_CODE[outcome]}${readyAtMs.toString(36)}_${amountMinor}_${currency}_${digest(key)}`;
}

function methodId(card: string, key: string): string {
  return `pm_sbx_${OUTCOME_CODE[SANDBOX_CARDS[card as keyof typeof SANDBOX_CARDS].outcome]}${card.slice(-4)}_${digest(key)}`;
}

function methodOutcome(id: string): Outcome | undefined {
  const match = /^pm_sbx_([sdal])\d{4}_[0-9a-f]{16}$/.exec(id);
  return match ? CODE_OUTCOME[match[1]!] : undefined;
}

export interface SandboxProvider extends PaymentProvider {
  signEvent(event: unknown): { body: string; headers: Record<string, string> };
  /**
   * The customer's answer on the authentication step of a REQUIRES_ACTION payment (what Stripe's
   * 3-D Secure page does for a PaymentIntent): the same payment, SUCCEEDED when approved, FAILED
   * when not. Nothing new is charged.
   */
  authenticate(paymentId: string, approved: boolean): ProviderPayment;
}

export function createSandboxProvider(clock: Clock): SandboxProvider {
  // metadata is echoed by lookups in this process; a restart forgets it (the id carries the rest)
  const metadataOf = new Map<string, Record<string, string>>();
  const refunded = new Map<string, bigint>();

  function read(id: string): ProviderPayment {
    const match = /^pi_sbx_([sdaluf])([0-9a-z]+)_(\d+)_([A-Z]{3})_[0-9a-f]{16}$/.exec(id);
    if (!match) throw new Error(`sandbox: no payment ${id}`);
    const base = { id, amountMinor: BigInt(match[3]!), currency: match[4]!, metadata: metadataOf.get(id) ?? {} };
    // after the customer's authentication step (authenticate below)
    if (match[1] === AUTHENTICATED) return { ...base, status: 'SUCCEEDED', failureCode: null, failureMessage: null };
    if (match[1] === AUTHENTICATION_FAILED) {
      return { ...base, status: 'FAILED', failureCode: 'payment_intent_authentication_failure', failureMessage: 'The authentication was not completed.' };
    }
    const outcome = CODE_OUTCOME[match[1]!]!;
    const ready = clock.now().getTime() >= parseInt(match[2]!, 36);
    if (outcome === 'declined') return { ...base, status: 'FAILED', failureCode: 'card_declined', failureMessage: 'Your card was declined.' };
    if (outcome === 'requires_action') {
      return { ...base, status: 'REQUIRES_ACTION', failureCode: 'authentication_required', failureMessage: 'The card requires authentication by the customer.' };
    }
    if (outcome === 'delayed' && !ready) return { ...base, status: 'PENDING', failureCode: null, failureMessage: null };
    return { ...base, status: 'SUCCEEDED', failureCode: null, failureMessage: null };
  }

  function sign(body: string, timestamp: number): string {
    return createHmac('sha256', SANDBOX_WEBHOOK_SECRET).update(`${timestamp}.${body}`).digest('hex');
  }

  return {
    name: 'sandbox',
    async verify() {},
    async createCustomer({ idempotencyKey }) {
      return { id: `cus_sbx_${digest(idempotencyKey)}` };
    },
    async setupPaymentMethod({ method, idempotencyKey }): Promise<SetupResult> {
      const card = method.replace(/[\s-]/g, '');
      const known = SANDBOX_CARDS[card as keyof typeof SANDBOX_CARDS];
      if (!known) {
        return { status: 'FAILED', failureCode: 'invalid_number', failureMessage: `the sandbox accepts only its test cards (${Object.keys(SANDBOX_CARDS).join(', ')})` };
      }
      return { status: 'SUCCEEDED', method: { id: methodId(card, idempotencyKey), type: 'CARD', cardBrand: known.brand, cardLast4: card.slice(-4), expMonth: 12, expYear: clock.now().getUTCFullYear() + 5 } };
    },
    async charge(request: ChargeRequest) {
      const outcome = methodOutcome(request.paymentMethodId);
      if (!outcome) throw new Error(`sandbox: no payment method ${request.paymentMethodId}`);
      // the ready time comes from the key's first use only when the key is new; a replay must answer the same id
      const known = [...metadataOf.keys()].find((id) => id.endsWith(`_${digest(request.idempotencyKey)}`));
      const id = known ?? paymentId(outcome, outcome === 'delayed' ? clock.now().getTime() + SANDBOX_DELAY_MS : 0, request.amountMinor, request.currency, request.idempotencyKey);
      metadataOf.set(id, { ...request.metadata });
      return read(id);
    },
    async getPayment(id) {
      return read(id);
    },
    async refund({ paymentId: id, amountMinor, idempotencyKey }): Promise<ProviderRefund> {
      const payment = read(id);
      const refundId = `re_sbx_${digest(idempotencyKey)}`;
      const already = refunded.get(refundId);
      if (already !== undefined) return { id: refundId, paymentId: id, status: 'SUCCEEDED', amountMinor: already };
      const total = [...refunded.entries()].filter(([key]) => key.startsWith(`${id}:`)).reduce((sum, [, v]) => sum + v, 0n);
      if (payment.status !== 'SUCCEEDED' || amountMinor <= 0n || total + amountMinor > payment.amountMinor) {
        return { id: refundId, paymentId: id, status: 'FAILED', amountMinor };
      }
      refunded.set(refundId, amountMinor);
      refunded.set(`${id}:${refundId}`, amountMinor);
      return { id: refundId, paymentId: id, status: 'SUCCEEDED', amountMinor };
    },
    async parseWebhook(rawBody, headers): Promise<ProviderEvent[]> {
      const header = headers[SANDBOX_SIGNATURE_HEADER];
      const match = typeof header === 'string' ? /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header) : null;
      if (!match) throw new WebhookSignatureError(`missing or malformed ${SANDBOX_SIGNATURE_HEADER} header`);
      const expected = Buffer.from(sign(rawBody, Number(match[1])), 'hex');
      if (!timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'))) throw new WebhookSignatureError('signature does not match the body');
      const event = JSON.parse(rawBody) as { id: string; type: string; payment_id?: string };
      return [{ id: event.id, type: event.type, payment: event.payment_id ? read(event.payment_id) : null, paymentId: event.payment_id ?? null }];
    },
    authenticate(paymentId, approved) {
      if (read(paymentId).status !== 'REQUIRES_ACTION') throw new Error(`sandbox: payment ${paymentId} does not need authentication`);
      const id = paymentId.replace(/^pi_sbx_a/, `pi_sbx_${approved ? AUTHENTICATED : AUTHENTICATION_FAILED}`);
      metadataOf.set(id, metadataOf.get(paymentId) ?? {});
      return read(id);
    },
    /** Signs a sandbox event `{id, type, payment_id}` the way the sandbox's webhooks are signed. */
    signEvent(event) {
      const body = JSON.stringify(event);
      const timestamp = Math.floor(clock.now().getTime() / 1000);
      return { body, headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: `t=${timestamp},v1=${sign(body, timestamp)}` } };
    },
  };
}
