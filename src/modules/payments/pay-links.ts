// Hosted pay links of invoices (docs/payments.md, "Pages"). A link's token is an HMAC of
// (tenant, invoice, nonce) under a key derived from the service secret: it is unguessable, is not
// the invoice id, can be shown again on every read (API answer, e-mail, PDF, portal) without
// being stored, and only its hash is looked up. Revoking sets revoked_at; the next read issues a
// link with a new nonce. A link lives as long as its invoice: once paid it shows "paid", once
// voided it shows that nothing is owed.
import { createHmac, hkdfSync } from 'node:crypto';
import type { Clock } from '../../kernel/clock.js';
import { hashSecret, randomToken } from '../../kernel/secrets.js';
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { InvoiceRow } from '../invoices/index.js';

/** Prefix that makes a leaked pay token recognisable (secret scanners, logs). */
export const PAY_TOKEN_PREFIX = 'ip_';
const TOKEN_SHAPE = /^ip_[A-Za-z0-9_-]{43}$/;

/** Whether an invoice can be paid on its page now: finalized with something still due. */
export function payable(invoice: Pick<InvoiceRow, 'status' | 'amount_due_minor' | 'amount_paid_minor'>): boolean {
  return invoice.status === 'FINALIZED' && invoice.amount_due_minor > invoice.amount_paid_minor;
}

export function createPayLinks(deps: { clock: Clock; secretKey: string; publicBaseUrl: string | undefined }) {
  const key = Buffer.from(hkdfSync('sha256', deps.secretKey, 'tally-billing', 'invoice-pay-links', 32));
  const tokenOf = (tenantId: string, invoiceId: string, nonce: string) =>
    PAY_TOKEN_PREFIX + createHmac('sha256', key).update(`${tenantId}/${invoiceId}/${nonce}`).digest('base64url');
  const base = (origin?: string) => (deps.publicBaseUrl ?? origin ?? 'http://localhost:3000').replace(/\/+$/, '');

  /** The live token of an invoice, issued on first use (in the caller's transaction). */
  async function tokenFor(db: Queryable, tenantId: string, invoiceId: string): Promise<string> {
    const scope = scoped(db, tenantId);
    const live = await scope.one<{ nonce: string }>(`SELECT nonce FROM invoice_pay_links WHERE tenant_id = $1 AND invoice_id = $2 AND revoked_at IS NULL`, [invoiceId]);
    if (live) return tokenOf(tenantId, invoiceId, live.nonce);
    const nonce = randomToken(16);
    await scope.query(
      `INSERT INTO invoice_pay_links (tenant_id, invoice_id, nonce, token_hash, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (tenant_id, invoice_id) WHERE revoked_at IS NULL DO NOTHING`,
      [invoiceId, nonce, hashSecret(tokenOf(tenantId, invoiceId, nonce)), deps.clock.now()],
    );
    // a concurrent first read may have won: read back whichever link is live
    const winner = await scope.one<{ nonce: string }>(`SELECT nonce FROM invoice_pay_links WHERE tenant_id = $1 AND invoice_id = $2 AND revoked_at IS NULL`, [invoiceId]);
    return tokenOf(tenantId, invoiceId, winner!.nonce);
  }

  /**
   * The hosted pay page of an invoice, or null when it is not payable (draft, void,
   * uncollectible, paid). Starts with PUBLIC_BASE_URL, else `origin` (the request's), else
   * http://localhost:3000. The one way to build this URL (API answers, e-mails, PDF, portal, dunning).
   */
  async function payUrlFor(db: Queryable, invoice: Pick<InvoiceRow, 'id' | 'status' | 'amount_due_minor' | 'amount_paid_minor'>, tenantId: string, origin?: string): Promise<string | null> {
    if (!payable(invoice)) return null;
    return `${base(origin)}/pay/${await tokenFor(db, tenantId, invoice.id)}`;
  }

  /** The invoice a presented token opens, or undefined (unknown and revoked look the same). */
  async function resolve(db: Queryable, token: string): Promise<{ tenantId: string; invoiceId: string } | undefined> {
    if (!TOKEN_SHAPE.test(token)) return undefined;
    // Crosses tenants by design, like portal tokens: the holder does not say which tenant it belongs to.
    const result = await db.query<{ tenant_id: string; invoice_id: string }>(
      `SELECT tenant_id, invoice_id FROM invoice_pay_links WHERE token_hash = $1 AND revoked_at IS NULL`,
      [hashSecret(token)],
    );
    const row = result.rows[0];
    return row ? { tenantId: row.tenant_id, invoiceId: row.invoice_id } : undefined;
  }

  /** Revokes the invoice's live link; true when there was one. */
  async function revoke(db: Queryable, tenantId: string, invoiceId: string): Promise<boolean> {
    const rows = await scoped(db, tenantId).query(
      `UPDATE invoice_pay_links SET revoked_at = $3 WHERE tenant_id = $1 AND invoice_id = $2 AND revoked_at IS NULL RETURNING nonce`,
      [invoiceId, deps.clock.now()],
    );
    return rows.length > 0;
  }

  return { payUrlFor, resolve, revoke };
}

export type PayLinks = ReturnType<typeof createPayLinks>;
