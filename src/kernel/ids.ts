import { randomBytes } from 'node:crypto';

/**
 * Public ids: `<prefix>_<suffix>`. The suffix is 26 Crockford base32 characters: 48 bits of
 * millisecond time then 80 random bits (ULID layout), so ids sort by creation time as text.
 */
export const ID_PREFIXES = {
  organization: 'org',
  tenant: 'ten',
  user: 'usr',
  apiKey: 'key',
  productFamily: 'pf',
  product: 'prd',
  plan: 'plan',
  planVersion: 'plv',
  priceComponent: 'price',
  price: 'pri',
  addOn: 'add',
  feature: 'feat',
  entitlement: 'ent',
  metric: 'bm',
  coupon: 'cou',
  customer: 'cus',
  subscription: 'sub',
  checkoutSession: 'che',
  invoice: 'inv',
  creditNote: 'crn',
  invoicingEntity: 'ive',
  // Outbox (webhook) events, as the reference spells them. Until issue 15 they were `oev_`: such
  // ids stay stored and are still matched as plain strings wherever an event id is looked up.
  outboxEvent: 'evt',
  webhookEndpoint: 'whe',
  oauthApp: 'app',
  connectedAccount: 'cacc',
  subscriptionComponent: 'sub_price',
  subscriptionAddOn: 'sub_add',
  appliedCoupon: 'sub_cou',
  invoiceLine: 'inl',
  payment: 'pay',
  webhookDelivery: 'whd',
  emailMessage: 'eml',
  oauthGrant: 'grant',
  session: 'ses',
  document: 'doc',
  batchJob: 'bjob',
  batchJobChunk: 'bjch',
  customProperty: 'cprop',
  customerBalanceTransaction: 'cbt',
  paymentProviderConnection: 'ppc',
  paymentMethod: 'pm',
  paymentAttempt: 'ptx',
  paymentRefund: 'pref',
  testClock: 'clock',
  creditGrant: 'cgr',
  creditLedgerEntry: 'cle',
  alert: 'alr',
  exportRun: 'exp',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;
export type IdPrefix = (typeof ID_PREFIXES)[IdKind];
/** A branded id string: `Id<'cus'>` cannot be passed where `Id<'sub'>` is expected. */
export type Id<P extends string> = `${P}_${string}` & { readonly __brand: P };

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function encodeTime(ms: number): string {
  let out = '';
  let rest = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

function encodeRandom(): string {
  const bytes = randomBytes(16);
  let out = '';
  for (let i = 0; i < 16; i++) out += ALPHABET[bytes[i]! % 32];
  return out;
}

export function newId<K extends IdKind>(kind: K, nowMs: number = Date.now()): Id<(typeof ID_PREFIXES)[K]> {
  return `${ID_PREFIXES[kind]}_${encodeTime(nowMs)}${encodeRandom()}` as Id<(typeof ID_PREFIXES)[K]>;
}

const SUFFIX = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** True when `value` is an id of exactly this kind (prefixes may overlap, so parse per kind). */
export function isIdOf(kind: IdKind, value: string): boolean {
  const prefix = `${ID_PREFIXES[kind]}_`;
  return value.startsWith(prefix) && SUFFIX.test(value.slice(prefix.length));
}
