// Receipt e-mails (docs/webhooks-emails.md, "Receipts"), delivered to a real SMTP server on
// loopback: one per SUCCEEDED payment transaction, whatever settled it (the finalization charge,
// the pay page, a payment that settles later), never twice on a replay, none when the tenant
// disabled e-mails; the invoice-level receipt of invoice.paid stays for manual payments. And the
// invoice e-mail carries the invoice's pay link.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpInbox, type ReceivedMail, type SmtpInbox } from '../harness/smtp-inbox.js';
import { createHarness, type Harness } from '../harness/app.js';
import { createCustomer, createDraft } from '../http/invoices-support.js';
import { RECONCILE_TASK } from '../../src/modules/payments/index.js';
import { createEmailsModule, sqlEmailPorts } from '../../src/modules/emails/index.js';
import { createSmtpMailer } from '../../src/adapters/email/mailer.js';
import { SANDBOX_DELAY_MS } from '../../src/adapters/payments/sandbox.js';
import { withTx } from '../../src/db/tx.js';
import type { OutboxRecord } from '../../src/db/outbox.js';

const inbox: ReceivedMail[] = [];
let smtp: SmtpInbox;
let h: Harness;

beforeAll(async () => {
  smtp = await startSmtpInbox(inbox);
  h = await createHarness({ smtp: { host: '127.0.0.1', port: smtp.port, secure: false, from: 'billing@tally.test' }, publicBaseUrl: 'https://billing.example.test' });
});
afterAll(async () => {
  await h.service.app.close();
  await h.db.drop();
  await smtp.close();
});

async function settle(): Promise<void> {
  for (let round = 0; round < 6; round++) await h.drainJobs();
}

let seq = 0;
async function payer(card?: string): Promise<{ id: string; email: string }> {
  seq += 1;
  const email = `receipt${seq}@receipts.test`;
  const customer = await createCustomer(h, { name: `Receipt payer ${seq}`, billing_email: email });
  if (card) expect((await h.request('POST', `/api/v1/customers/${customer.id}/payment-methods`, { body: { card_number: card } })).statusCode).toBe(201);
  return { id: customer.id, email };
}

async function finalize(customerId: string): Promise<Record<string, string>> {
  const draft = await createDraft(h, customerId);
  const res = await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const mailsTo = (email: string) => inbox.filter((m) => m.to.includes(email));
const receiptsTo = (email: string) => mailsTo(email).filter((m) => /^Subject: Receipt for invoice/m.test(m.raw));
/** Quoted-printable soft breaks removed, so long lines (URLs) can be searched. */
const plain = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
const transactions = async (invoiceId: string) => (await h.request('GET', `/api/v1/invoices/${invoiceId}/payment-transactions`)).json().data as Record<string, string>[];
const logged = async (query: string) => (await h.request('GET', `/api/v1/emails?${query}`)).json().data as Record<string, unknown>[];

describe('receipt e-mails', () => {
  it('mails one receipt for the finalization charge, naming the payment, and no second one for invoice.paid', async () => {
    const customer = await payer('4242424242424242');
    const invoice = await finalize(customer.id);
    await settle();
    const [payment] = await transactions(invoice.id!);
    expect(payment).toMatchObject({ status: 'SUCCEEDED' });
    await expect.poll(() => receiptsTo(customer.email).length).toBe(1);
    const receipt = plain(receiptsTo(customer.email)[0]!.raw);
    expect(receipt).toContain(`We received your payment of 144.00 EUR for invoice ${invoice.invoice_number}.`);
    expect(receipt).toContain(`Payment reference: ${payment!.id}`);
    expect(receipt).toContain('The invoice is paid in full.');
    expect(await logged(`kind=PAYMENT_RECEIPT&customer_id=${customer.id}`)).toEqual([expect.objectContaining({ object_id: payment!.id, status: 'SENT' })]);
    await settle();
    expect(receiptsTo(customer.email)).toHaveLength(1);
  });

  it('never mails a payment\'s receipt twice: a replayed event and a replayed webhook add nothing', async () => {
    const customer = await payer('4242424242424242');
    const invoice = await finalize(customer.id);
    await settle();
    const [payment] = await transactions(invoice.id!);
    await expect.poll(() => receiptsTo(customer.email).length).toBe(1);

    // the provider's event for the same payment, twice (a replayed webhook): the transaction is already SUCCEEDED, nothing new is emitted
    const replay = async () => h.service.payments.charging.applyEvent(h.tenant.id, 'sandbox', {
      id: `evt_replay_${payment!.id}`, type: 'payment.succeeded', payment: await h.service.payments.providers.sandbox.getPayment(payment!.provider_transaction_id!),
    });
    expect(await replay()).toBe(true);
    expect(await replay()).toBe(false);
    // the payment.succeeded event handed to the e-mails consumer once more (a relay replay)
    const { rows } = await h.db.pool.query<OutboxRecord>(`SELECT seq, id, tenant_id, event_type, object_id, payload, created_at FROM outbox_events WHERE event_type = 'payment.succeeded' AND object_id = $1`, [payment!.id]);
    expect(rows).toHaveLength(1);
    const emails = createEmailsModule({ pool: h.db.pool, clock: h.clock, mailer: createSmtpMailer(h.config.smtp), ports: sqlEmailPorts(h.db.pool, async () => null) });
    // as a new event id too: the receipt is one per payment transaction, not per event
    for (const event of [rows[0]!, { ...rows[0]!, id: `${rows[0]!.id}_again` }]) await withTx(h.db.pool, (tx) => emails.outboxConsumers![0]!.handle(tx, event));
    await settle();
    expect(await logged(`kind=PAYMENT_RECEIPT&customer_id=${customer.id}`)).toHaveLength(1);
    expect(receiptsTo(customer.email)).toHaveLength(1);
  });

  it('mails a receipt for a payment that settles later (found by the reconciler)', async () => {
    const customer = await payer('4000000000000077');
    const invoice = await finalize(customer.id);
    await settle();
    expect((await transactions(invoice.id!))[0]).toMatchObject({ status: 'PENDING' });
    expect(receiptsTo(customer.email)).toHaveLength(0);
    h.clock.advance(Math.max(SANDBOX_DELAY_MS, 5 * 60_000));
    await h.service.tasks[RECONCILE_TASK]!({ once: true });
    await settle();
    expect((await transactions(invoice.id!))[0]).toMatchObject({ status: 'SUCCEEDED' });
    await expect.poll(() => receiptsTo(customer.email).length).toBe(1);
  });

  it('mails a receipt for a payment on the pay page, and the invoice e-mail carried that pay link', async () => {
    const customer = await payer();
    const invoice = await finalize(customer.id);
    await settle();
    const invoiceMail = plain(mailsTo(customer.email).find((m) => /^Subject: Invoice /m.test(m.raw))!.raw);
    expect(invoiceMail).toContain(`Pay online: ${invoice.payment_url}`);

    const path = new URL(invoice.payment_url!).pathname;
    const page = await h.service.app.inject({ method: 'GET', url: path });
    const cookie = String(page.headers['set-cookie']).split(';')[0]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const paid = await h.service.app.inject({
      method: 'POST', url: path, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrf, method: 'new', card_number: '4242 4242 4242 4242' }).toString(),
    });
    expect(paid.statusCode, paid.body).toBe(303);
    await settle();
    await expect.poll(() => receiptsTo(customer.email).length).toBe(1);
    expect(plain(receiptsTo(customer.email)[0]!.raw)).toContain(`Payment reference: ${(await transactions(invoice.id!))[0]!.id}`);
  });

  it('keeps the invoice receipt of a manual payment (mark-paid)', async () => {
    const customer = await payer();
    const invoice = await finalize(customer.id);
    await h.request('POST', `/api/v1/invoices/${invoice.id}/mark-paid`, { body: {} });
    await settle();
    await expect.poll(() => receiptsTo(customer.email).length).toBe(1);
    expect(plain(receiptsTo(customer.email)[0]!.raw)).toContain(`We received your payment for invoice ${invoice.invoice_number}.`);
  });

  it('sends no receipt while the tenant disables e-mails, and logs the skip', async () => {
    await h.request('PATCH', '/api/v1/tenant', { body: { disable_emails: true } });
    try {
      const customer = await payer('4242424242424242');
      const invoice = await finalize(customer.id);
      await settle();
      const [payment] = await transactions(invoice.id!);
      expect(payment).toMatchObject({ status: 'SUCCEEDED' });
      expect(await logged(`kind=PAYMENT_RECEIPT&customer_id=${customer.id}`)).toEqual([expect.objectContaining({ object_id: payment!.id, status: 'SKIPPED', skip_reason: 'EMAILS_DISABLED' })]);
      expect(mailsTo(customer.email)).toHaveLength(0);
    } finally {
      await h.request('PATCH', '/api/v1/tenant', { body: { disable_emails: false } });
    }
  });
});
