// HTTP API of invoice pay links (docs/payments.md, "Invoice pay page"): revoking a link that went
// to the wrong person, or leaked, and getting the invoice's new one.
import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, errorResponses } from '../../http/schemas.js';
import { notFound } from '../../kernel/errors.js';
import type { Pool } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { findInvoice } from '../invoices/index.js';
import type { PayLinks } from './pay-links.js';
import { INVOICE_ID } from './schemas.js';

const InvoiceParams = Type.Object({ invoice_id: Type.String({ description: 'Invoice ID', examples: [INVOICE_ID] }) });
const RevokedLink = Type.Object({
  invoice_id: Type.String(),
  revoked: Type.Boolean({ description: 'true when a live link was ended (false: the invoice had none yet)' }),
  payment_url: Type.Union([Type.String(), Type.Null()], { description: 'The new link, the same as the invoice\'s `payment_url` from now on; null when the invoice is not payable (no new link is issued)' }),
});

export function payLinkRoutes(deps: { pool: Pool; links: PayLinks }) {
  return async (app: App) => {
    app.post('/api/v1/invoices/:invoice_id/payment-link/revoke', {
      schema: {
        tags: ['Payments'],
        operationId: 'revoke_invoice_payment_link',
        summary: 'Revoke an invoice\'s pay link',
        description:
          'Ends the invoice\'s hosted pay link at once: opening it shows "invalid or replaced" and nothing can be paid through it. A payable invoice (FINALIZED with an amount ' +
          'still due) gets a new link, answered as `payment_url`; the e-mails and PDFs sent before keep the old one. Links already in e-mails are not resent. ' +
          'An unknown invoice (or another tenant\'s) is a 404. No body.',
        params: InvoiceParams,
        response: {
          200: documented(RevokedLink, 'The old link is dead; the new one', { invoice_id: INVOICE_ID, revoked: true, payment_url: 'https://billing.example.com/pay/ip_Qm9vZ2xlIGlzIG5vdCBhIHRva2VuIGJ1dCBhbiBleGFtcGxl' }),
          ...errorResponses([401, 404]),
        },
      },
    }, async (request) => {
      const tenantId = authOf(request).tenantId;
      return withTx(deps.pool, async (tx) => {
        const invoice = await findInvoice(tx, tenantId, request.params.invoice_id);
        if (!invoice) throw notFound('invoice');
        const revoked = await deps.links.revoke(tx, tenantId, invoice.id);
        const url = await deps.links.payUrlFor(tx, invoice, tenantId, `${request.protocol}://${request.host}`);
        return { invoice_id: invoice.id, revoked, payment_url: url };
      });
    });
  };
}
