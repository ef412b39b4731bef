// The payment provider port (docs/payments.md). Every adapter (the built-in sandbox, Stripe, GoCardless)
// implements it and passes the one contract suite (test/unit/adapters/payments/contract.ts).
// Amounts are integers in the currency's minor unit, as providers take them.

export type ProviderName = 'sandbox' | 'stripe' | 'gocardless';

/**
 * Where a charge stands at the provider. PENDING: accepted, not settled yet (delayed methods,
 * provider still processing; a direct debit stays PENDING for days until the provider's webhook
 * says it was collected or failed); REQUIRES_ACTION: the customer must authenticate (3-D Secure).
 */
export type ProviderPaymentStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED' | 'REQUIRES_ACTION';

export interface ProviderPayment {
  /** The provider's id of the payment (Stripe: the PaymentIntent id). */
  id: string;
  status: ProviderPaymentStatus;
  amountMinor: bigint;
  currency: string;
  /** Machine reason of a failure or a needed action, e.g. `card_declined`, `authentication_required`. */
  failureCode: string | null;
  failureMessage: string | null;
  /** What was sent with the charge (our attempt id...), echoed by lookups and webhooks. */
  metadata: Record<string, string>;
  /**
   * The money was collected and then taken back by the payer's bank (a chargeback, GoCardless
   * `charged_back`); `status` is then FAILED. The one answer that undoes a SUCCEEDED payment.
   */
  reversed?: boolean;
}

export interface SavedPaymentMethod {
  /** The provider's id of what is charged (Stripe: PaymentMethod id; GoCardless: mandate id). */
  id: string;
  type: 'CARD' | 'DIRECT_DEBIT';
  cardBrand: string | null;
  cardLast4: string | null;
  expMonth: number | null;
  expYear: number | null;
  /** DIRECT_DEBIT only: the mandate's scheme and the bank account it debits. */
  directDebit?: { scheme: string; bankName: string | null; accountNumberEnding: string | null; mandateReference: string | null };
}

/** The result of saving a method: saved, or refused with the provider's reason. */
export type SetupResult =
  | { status: 'SUCCEEDED'; method: SavedPaymentMethod }
  | { status: 'FAILED' | 'REQUIRES_ACTION'; failureCode: string; failureMessage: string };

export interface ChargeRequest {
  customerId: string;
  paymentMethodId: string;
  /** The saved method's type: Stripe must be told a direct debit (`payment_method_types`). */
  methodType?: SavedPaymentMethod['type'];
  amountMinor: bigint;
  currency: string;
  /** Same key, same answer, at most one charge: derived from our attempt id. */
  idempotencyKey: string;
  description: string;
  metadata: Record<string, string>;
}

export interface ProviderRefund {
  id: string;
  paymentId: string;
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  amountMinor: bigint;
}

/** A verified provider webhook, reduced to what the payments module acts on. */
export interface ProviderEvent {
  /** The provider's event id: each is processed once. */
  id: string;
  /** The provider's own event type, e.g. `payment_intent.succeeded`. */
  type: string;
  /** The payment the event is about, when the event carries its state (Stripe, sandbox). */
  payment: ProviderPayment | null;
  /**
   * The id of the payment the event is about. An event that names a payment without carrying its
   * state (GoCardless) is applied by looking the payment up (`getPayment`).
   */
  paymentId: string | null;
  /**
   * The provider's id of a saved method the event says can no longer be charged (GoCardless: a
   * mandate cancelled, expired or failed), or null.
   */
  revokedMethodId?: string | null;
}

/** A webhook whose signature does not verify (or that cannot be read). */
export class WebhookSignatureError extends Error {}

/** The provider refused the credentials (verify action). */
export class ProviderAuthenticationError extends Error {}

export interface PaymentProvider {
  readonly name: ProviderName;
  /** Checks the credentials with one read-only call. Throws ProviderAuthenticationError when refused. */
  verify(): Promise<void>;
  /** Creates the provider's customer for one of ours; `idempotencyKey` makes a retry return the same one. */
  createCustomer(input: { name: string; email: string | null; reference: string; idempotencyKey: string }): Promise<{ id: string }>;
  /**
   * Saves a payment method on the provider's customer for later off-session charges. `method` is
   * what the customer's browser obtained from the provider (Stripe: a PaymentMethod id; sandbox: a
   * test card number; GoCardless: an IBAN, or the id of a mandate made in GoCardless's own flow).
   * `holderName` names the bank account's holder where the provider needs it (direct debit);
   * `billingEmail` is the payer's e-mail (Stripe requires it on a SEPA Direct Debit method).
   */
  setupPaymentMethod(input: { customerId: string; method: string; idempotencyKey: string; holderName?: string; billingEmail?: string | null }): Promise<SetupResult>;
  /**
   * Charges a saved method off-session. Declines are answers (status FAILED), not exceptions. A
   * direct debit answers PENDING: its outcome arrives days later by webhook or lookup.
   */
  charge(request: ChargeRequest): Promise<ProviderPayment>;
  /** The payment as the provider has it now. */
  getPayment(paymentId: string): Promise<ProviderPayment>;
  refund(input: { paymentId: string; amountMinor: bigint; idempotencyKey: string }): Promise<ProviderRefund>;
  /**
   * Verifies the signature of a webhook over its raw body and reads its events (one delivery may
   * carry several: GoCardless batches them). Throws WebhookSignatureError.
   */
  parseWebhook(rawBody: string, headers: Record<string, string | string[] | undefined>): Promise<ProviderEvent[]>;
}
