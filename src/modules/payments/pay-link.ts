// The one builder of an invoice's hosted pay link (docs/payments.md, "Pay links"). Dunning
// e-mails carry it; the hosted invoice pay page (web/portal) should check tokens with
// `invoiceOfPayToken` and build links only here, so the two cannot disagree.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Where links point when PUBLIC_BASE_URL is not set (a local run). */
export const DEFAULT_PUBLIC_BASE_URL = 'http://localhost:3000';

function signatureOf(secretKey: string, tenantId: string, invoiceId: string): string {
  return createHmac('sha256', secretKey).update(`invoice-pay-link/${tenantId}/${invoiceId}`).digest('base64url').slice(0, 22);
}

/** `<invoice id>.<signature>`: names the invoice and cannot be forged for another one without the service secret. */
export function payTokenOf(secretKey: string, tenantId: string, invoiceId: string): string {
  return `${invoiceId}.${signatureOf(secretKey, tenantId, invoiceId)}`;
}

/** The invoice id a pay token names, or null when the token was not made for this tenant with this secret. */
export function invoiceOfPayToken(secretKey: string, tenantId: string, token: string): string | null {
  const dot = token.lastIndexOf('.');
  if (dot <= 0) return null;
  const invoiceId = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1));
  const expected = Buffer.from(signatureOf(secretKey, tenantId, invoiceId));
  return given.length === expected.length && timingSafeEqual(given, expected) ? invoiceId : null;
}

/** `{PUBLIC_BASE_URL}/pay/{token}`. */
export function invoicePayUrl(publicBaseUrl: string | undefined, secretKey: string, tenantId: string, invoiceId: string): string {
  return `${(publicBaseUrl ?? DEFAULT_PUBLIC_BASE_URL).replace(/\/+$/, '')}/pay/${payTokenOf(secretKey, tenantId, invoiceId)}`;
}
