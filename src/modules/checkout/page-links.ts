// The hosted checkout page's link of a session (docs/payments.md, "Hosted checkout"). Like invoice
// pay links: the token is an HMAC of (tenant, session, nonce) under a key derived from the service
// secret, so it is unguessable, is not the session id, can be shown again on every read without
// being stored, and only its hash is looked up. The page itself is served by payments.
import { createHmac, hkdfSync } from 'node:crypto';
import { hashSecret, randomToken } from '../../kernel/secrets.js';

/** Prefix that makes a leaked checkout token recognisable (secret scanners, logs). */
export const CHECKOUT_TOKEN_PREFIX = 'cs_';
export const CHECKOUT_TOKEN_SHAPE = /^cs_[A-Za-z0-9_-]{43}$/;

export function createCheckoutLinks(deps: { secretKey: string; publicBaseUrl: string | undefined }) {
  const key = Buffer.from(hkdfSync('sha256', deps.secretKey, 'tally-billing', 'checkout-page-links', 32));
  const tokenOf = (tenantId: string, sessionId: string, nonce: string) =>
    CHECKOUT_TOKEN_PREFIX + createHmac('sha256', key).update(`${tenantId}/${sessionId}/${nonce}`).digest('base64url');

  /** A new link of a session: the nonce to keep and the hash to look the token up by. */
  function issue(tenantId: string, sessionId: string): { nonce: string; tokenHash: string } {
    const nonce = randomToken(16);
    return { nonce, tokenHash: hashSecret(tokenOf(tenantId, sessionId, nonce)) };
  }

  /**
   * The page's URL: PUBLIC_BASE_URL, else `origin` (the request's), else http://localhost:3000 —
   * the rule of invoice pay links (payments' payUrlFor).
   */
  function urlOf(tenantId: string, sessionId: string, nonce: string, origin?: string): string {
    const base = (deps.publicBaseUrl ?? origin ?? 'http://localhost:3000').replace(/\/+$/, '');
    return `${base}/checkout/${tokenOf(tenantId, sessionId, nonce)}`;
  }

  return { issue, urlOf, hashOf: hashSecret };
}

export type CheckoutLinks = ReturnType<typeof createCheckoutLinks>;
