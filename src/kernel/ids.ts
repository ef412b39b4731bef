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

// Random bytes drawn a few kilobytes at a time: one call into the CSPRNG per 256 ids instead of
// one per id (a billing run makes several ids per invoice, and the call cost more than the id).
const RANDOM_POOL_BYTES = 4096;
let randomPool = Buffer.alloc(0);
let randomOffset = 0;

function encodeRandom(): string {
  if (randomOffset + 16 > randomPool.length) {
    randomPool = randomBytes(RANDOM_POOL_BYTES);
    randomOffset = 0;
  }
  let out = '';
  // 256 is a multiple of 32: each character is uniform
  for (let i = 0; i < 16; i++) out += ALPHABET[randomPool[randomOffset + i]! % 32];
  randomOffset += 16;
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
