/** What each kind of customer e-mail says. Rendered from the event data stored with the message. */
export type EmailKind = 'INVOICE' | 'PAYMENT_RECEIPT' | 'CREDIT_NOTE' | 'PAYMENT_FAILED';

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** `49.00 EUR`; amounts arrive as decimal strings in the event data. */
function amount(data: Record<string, unknown>, field: string): string | undefined {
  const value = str(data[field]) ?? (typeof data[field] === 'number' || typeof data[field] === 'bigint' ? String(data[field]) : undefined);
  return value === undefined ? undefined : `${value} ${str(data.currency) ?? ''}`.trim();
}

function render(subject: string, greeting: string, facts: Array<[string, string | undefined]>, closing: string, senderName: string): RenderedEmail {
  const shown = facts.filter((f): f is [string, string] => f[1] !== undefined);
  const text = [greeting, '', ...shown.map(([k, v]) => `${k}: ${v}`), '', closing, '', senderName, ''].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family: sans-serif">',
    `<p>${escapeHtml(greeting)}</p>`,
    '<table>',
    // a link (the pay page) is clickable in the HTML part
    ...shown.map(([k, v]) => `<tr><th align="left">${escapeHtml(k)}</th><td>${/^https?:\/\/\S+$/.test(v) ? `<a href="${escapeHtml(v)}">${escapeHtml(v)}</a>` : escapeHtml(v)}</td></tr>`),
    '</table>',
    `<p>${escapeHtml(closing)}</p>`,
    `<p>${escapeHtml(senderName)}</p>`,
    '</body></html>',
  ].join('\n');
  return { subject, text, html };
}

export function renderEmail(kind: EmailKind, data: Record<string, unknown>, senderName: string): RenderedEmail {
  switch (kind) {
    case 'INVOICE': {
      const number = str(data.invoice_number) ?? str(data.invoice_id) ?? '';
      // the hosted pay page, while the invoice was payable when it was finalized (payments' payUrlFor)
      const payUrl = str(data.pay_url);
      return render(
        `Invoice ${number} from ${senderName}`,
        `Your invoice ${number} is ready; the PDF is attached.`,
        [['Invoice number', number], ['Total', amount(data, 'total')], ['Amount due', amount(data, 'amount_due')], ['Due date', str(data.due_date)], ['Pay online', payUrl]],
        payUrl ? 'To pay online, open the "Pay online" link above. Thank you for your business.' : 'Thank you for your business.',
        senderName,
      );
    }
    case 'PAYMENT_RECEIPT': {
      if (str(data.payment_id)) {
        // one provider payment (payment.succeeded): what was taken, for which invoice, and what is left
        const number = str(data.invoice_number) ?? str(data.invoice_id) ?? '';
        const remaining = str(data.amount_remaining);
        const settled = remaining === undefined || /^0+(\.0+)?$/.test(remaining);
        return render(
          `Receipt for invoice ${number} from ${senderName}`,
          `We received your payment of ${amount(data, 'amount') ?? ''} for invoice ${number}.`,
          [['Invoice number', number], ['Amount paid', amount(data, 'amount')], ['Paid on', str(data.paid_at)?.slice(0, 10)], ['Payment reference', str(data.payment_id)],
            ['Still due', settled ? undefined : amount(data, 'amount_remaining')]],
          settled ? 'The invoice is paid in full. Thank you for your payment.' : 'Thank you for your payment.',
          senderName,
        );
      }
      const number = str(data.invoice_number) ?? str(data.invoice_id) ?? '';
      return render(
        `Receipt for invoice ${number} from ${senderName}`,
        `We received your payment for invoice ${number}.`,
        [['Invoice number', number], ['Amount paid', amount(data, 'total')]],
        'Thank you for your payment.',
        senderName,
      );
    }
    case 'PAYMENT_FAILED': {
      // dunning (payments): sent after each failed automatic charge, with the pay link
      const number = str(data.invoice_number) ?? str(data.invoice_id) ?? '';
      const next = str(data.next_retry_at);
      const payUrl = str(data.pay_url);
      const closing = next
        ? `We will try again on ${next.slice(0, 10)}. To pay now, or with another card, open ${payUrl ?? 'your customer portal'}.`
        : payUrl ? `We will not try again automatically. Please pay at ${payUrl}.` : 'We will not try again automatically.';
      return render(
        `Payment failed for invoice ${number} from ${senderName}`,
        `We could not collect the payment for invoice ${number}.`,
        [['Invoice number', number], ['Amount due', amount(data, 'amount_remaining')], ['Reason', str(data.failure_message) ?? str(data.failure_code)], ['Pay now', payUrl]],
        closing,
        senderName,
      );
    }
    case 'CREDIT_NOTE': {
      const number = str(data.credit_note_number) ?? str(data.credit_note_id) ?? '';
      return render(
        `Credit note ${number} from ${senderName}`,
        `A credit note ${number} was issued for your invoice.`,
        [['Credit note number', number], ['Total', amount(data, 'total')], ['Refunded', amount(data, 'refunded_amount_cents')], ['Credited to your balance', amount(data, 'credited_amount_cents')]],
        'The credit note PDF is attached.',
        senderName,
      );
    }
  }
}

/** Which outbox events mail the customer, and as what. */
export const EMAIL_KIND_BY_EVENT: Record<string, EmailKind> = {
  'invoice.finalized': 'INVOICE',
  'invoice.paid': 'PAYMENT_RECEIPT',
  'payment.succeeded': 'PAYMENT_RECEIPT',
  'invoice.payment_failed': 'PAYMENT_FAILED',
  'credit_note.finalized': 'CREDIT_NOTE',
};
