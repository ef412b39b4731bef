import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { useHarness, type Harness } from '../harness/app.js';
import { compose, type Composition } from '../../src/main.js';
import { drainJobs } from '../../src/jobs/runtime.js';
import { withTx } from '../../src/db/tx.js';
import { scoped } from '../../src/db/tenant-scope.js';
import { writeOutboxEvent } from '../../src/db/outbox.js';
import type { EventType } from '../../src/kernel/event-types.js';

const harness = useHarness();

interface Received {
  from: string;
  to: string[];
  raw: string;
}
const inbox: Received[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  logger: false,
  onRcptTo(address, _session, callback) {
    if (address.address.startsWith('bounce@')) {
      const error = new Error('mailbox unavailable') as Error & { responseCode: number };
      error.responseCode = 550;
      return callback(error);
    }
    callback();
  },
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      inbox.push({
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        to: session.envelope.rcptTo.map((r) => r.address),
        raw: Buffer.concat(chunks).toString('utf8'),
      });
      callback();
    });
  },
});

// A small but real PDF, provided through the invoice-PDF port as the invoices module will.
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n', 'latin1');
const CREDIT_PDF = Buffer.from('%PDF-1.4\n% credit note\n%%EOF\n', 'latin1');
const UBL_XML = Buffer.from('<?xml version="1.0" encoding="UTF-8"?>\n<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>\n');
let pdfFailuresLeft = 0;
let service: Composition;

beforeAll(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  const h = harness();
  service = await compose({
    pool: h.db.pool,
    clock: h.clock,
    config: { ...h.config, smtp: { ...h.config.smtp, host: '127.0.0.1', port, secure: false, from: 'billing@tally.test' } },
    emailPorts: {
      invoicePdf: async () => {
        if (pdfFailuresLeft > 0) {
          pdfFailuresLeft -= 1;
          throw new Error('the PDF of the invoice is not rendered yet');
        }
        return PDF;
      },
      creditNotePdf: async () => CREDIT_PDF,
      // the invoices port gives the XML only when the PDF does not carry it (a UBL e-invoice)
      eInvoiceXml: async (_tenantId, objectId, baseName) => (objectId === 'inv_ubl1' ? { content: UBL_XML, filename: `${baseName}.xml` } : null),
    },
  });
});
afterAll(async () => {
  await service?.app.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

const drain = (h: Harness) => drainJobs(h.db.pool, service.tasks);

async function emit(h: Harness, tenantId: string, type: EventType, objectId: string, data: Record<string, unknown>): Promise<string> {
  return withTx(h.db.pool, (tx) => writeOutboxEvent(scoped(tx, tenantId), h.clock, { type, objectId, data }));
}

function invoiceData(invoiceId: string, extra: Record<string, unknown> = {}) {
  return {
    invoice_id: invoiceId,
    customer_id: 'cus_01TEST',
    invoice_number: 'INV-0001',
    status: 'FINALIZED',
    currency: 'EUR',
    total: '49.00',
    tax_amount: '8.17',
    amount_due: '49.00',
    created_at: '2026-03-15T12:00:00.000Z',
    invoicing_emails: ['ap@customer.test'],
    invoicing_entity_name: 'Acme SAS',
    ...extra,
  };
}

/** The base64 body of the MIME part whose headers name `filename`, decoded. */
function attachment(raw: string, filename: string): { contentType: string; content: Buffer } | undefined {
  const parts = raw.split(/\r?\n--/);
  const part = parts.find((p) => p.includes(`filename=${filename}`) || p.includes(`filename="${filename}"`));
  if (!part) return undefined;
  const [headers, ...body] = part.split(/\r?\n\r?\n/);
  return { contentType: /Content-Type: ([^;\r\n]+)/i.exec(headers!)![1]!, content: Buffer.from(body.join('').replace(/\s+/g, ''), 'base64') };
}

async function emailsOf(h: Harness, key: string, query = '') {
  const res = await h.request('GET', `/api/v1/emails?order_by=created_at.asc&per_page=100${query}`, { key });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as Array<Record<string, any>>;
}

describe('customer e-mails over SMTP', () => {
  it('sends the finalized invoice with its PDF, text and HTML, from the invoicing entity', async () => {
    const h = harness();
    inbox.length = 0;
    const eventId = await emit(h, h.tenant.id, 'invoice.finalized', 'inv_mail1', invoiceData('inv_mail1'));
    await drain(h);
    expect(inbox).toHaveLength(1);
    const [mail] = inbox;
    expect(mail!.from).toBe('billing@tally.test');
    expect(mail!.to).toEqual(['ap@customer.test']);
    expect(mail!.raw).toMatch(/^From: Acme SAS <billing@tally\.test>$/m);
    expect(mail!.raw).toMatch(/^Subject: Invoice INV-0001 from Acme SAS$/m);
    expect(mail!.raw).toMatch(/Content-Type: multipart\/alternative/);
    expect(mail!.raw).toMatch(/Content-Type: text\/plain/);
    expect(mail!.raw).toMatch(/Content-Type: text\/html/);
    expect(mail!.raw).toContain('Amount due: 49.00 EUR');
    const pdf = attachment(mail!.raw, 'INV-0001.pdf');
    expect(pdf?.contentType).toBe('application/pdf');
    expect(pdf?.content.equals(PDF)).toBe(true);

    const [logged] = await emailsOf(h, h.tenant.apiKey, '&object_id=inv_mail1');
    expect(logged).toEqual({
      id: expect.stringMatching(/^eml_[0-9A-Z]{26}$/),
      kind: 'INVOICE',
      event_id: eventId,
      object_id: 'inv_mail1',
      customer_id: 'cus_01TEST',
      recipients: ['ap@customer.test'],
      sender_name: 'Acme SAS',
      subject: 'Invoice INV-0001 from Acme SAS',
      status: 'SENT',
      skip_reason: null,
      attempt_count: 1,
      last_error: null,
      created_at: h.clock.now().toISOString(),
      sent_at: h.clock.now().toISOString(),
    });
    const one = await h.request('GET', `/api/v1/emails/${logged!.id}`);
    expect(one.json()).toEqual(logged);
    const hidden = await h.request('GET', `/api/v1/emails/${logged!.id}`, { key: h.other.apiKey });
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json()).toEqual({ code: 'NOT_FOUND', message: 'email not found' });
  });

  it('attaches the structured e-invoice beside the PDF when the PDF does not carry it', async () => {
    const h = harness();
    inbox.length = 0;
    await emit(h, h.tenant.id, 'invoice.finalized', 'inv_ubl1', invoiceData('inv_ubl1', { invoice_number: 'INV-0002' }));
    await emit(h, h.tenant.id, 'invoice.finalized', 'inv_plain1', invoiceData('inv_plain1', { invoice_number: 'INV-0003' }));
    await drain(h);
    const ubl = inbox.find((mail) => mail.raw.includes('INV-0002'))!;
    expect(attachment(ubl.raw, 'INV-0002.pdf')?.content.equals(PDF)).toBe(true);
    expect(attachment(ubl.raw, 'INV-0002.xml')).toEqual({ contentType: 'application/xml', content: UBL_XML });
    const plain = inbox.find((mail) => mail.raw.includes('INV-0003'))!;
    expect(attachment(plain.raw, 'INV-0003.xml')).toBeUndefined();
  });

  it('sends a payment receipt and a credit note, falling back to the organization name', async () => {
    const h = harness();
    inbox.length = 0;
    const { invoicing_entity_name: _ignored, ...withoutEntity } = invoiceData('inv_mail2', { status: 'FINALIZED', invoice_number: 'INV-0002' });
    await emit(h, h.tenant.id, 'invoice.paid', 'inv_mail2', withoutEntity);
    await emit(h, h.tenant.id, 'credit_note.finalized', 'crn_mail1', {
      credit_note_id: 'crn_mail1',
      credit_note_number: 'CN-0001',
      customer_id: 'cus_01TEST',
      invoice_id: 'inv_mail2',
      status: 'FINALIZED',
      currency: 'EUR',
      total: '10.00',
      tax_amount: '1.67',
      refunded_amount_cents: '0.00',
      credited_amount_cents: '10.00',
      created_at: '2026-03-15T12:00:00.000Z',
      billing_email: 'owner@customer.test',
    });
    await drain(h);
    const subjects = inbox.map((m) => /^Subject: (.*)$/m.exec(m.raw)![1]).sort();
    expect(subjects).toEqual(['Credit note CN-0001 from Org A', 'Receipt for invoice INV-0002 from Org A']);
    const receipt = inbox.find((m) => m.raw.includes('Receipt for invoice'))!;
    expect(receipt.to).toEqual(['ap@customer.test']);
    expect(receipt.raw).toMatch(/^From: Org A <billing@tally\.test>$/m);
    expect(receipt.raw).not.toContain('application/pdf');
    const credit = inbox.find((m) => m.raw.includes('Credit note CN-0001'))!;
    expect(credit.to).toEqual(['owner@customer.test']);
    expect(attachment(credit.raw, 'CN-0001.pdf')?.content.equals(CREDIT_PDF)).toBe(true);
    expect((await emailsOf(h, h.tenant.apiKey, '&status=SENT&kind=PAYMENT_RECEIPT')).map((e) => e.object_id)).toEqual(['inv_mail2']);
  });

  it('sends nothing for a tenant with disable_emails on, and logs every skip', async () => {
    const h = harness();
    inbox.length = 0;
    await h.db.pool.query(`UPDATE tenants SET disable_emails = true WHERE id = $1`, [h.production.id]);
    // one at a time: the log lists by creation time
    await emit(h, h.production.id, 'invoice.finalized', 'inv_quiet', invoiceData('inv_quiet'));
    await drain(h);
    h.clock.advance(1000);
    await emit(h, h.production.id, 'invoice.paid', 'inv_quiet', invoiceData('inv_quiet'));
    await drain(h);
    h.clock.advance(1000);
    await emit(h, h.production.id, 'credit_note.finalized', 'crn_quiet', { credit_note_id: 'crn_quiet', customer_id: 'cus_01TEST', billing_email: 'x@customer.test' });
    await drain(h);
    expect(inbox).toEqual([]);
    const logged = await emailsOf(h, h.production.apiKey);
    expect(logged.map((e) => [e.kind, e.status, e.skip_reason, e.attempt_count, e.sent_at])).toEqual([
      ['INVOICE', 'SKIPPED', 'EMAILS_DISABLED', 0, null],
      ['PAYMENT_RECEIPT', 'SKIPPED', 'EMAILS_DISABLED', 0, null],
      ['CREDIT_NOTE', 'SKIPPED', 'EMAILS_DISABLED', 0, null],
    ]);
    expect(await emailsOf(h, h.production.apiKey, '&status=SENT')).toEqual([]);
    // the sandbox tenant of the same organization still mails
    await emit(h, h.tenant.id, 'invoice.finalized', 'inv_loud', invoiceData('inv_loud'));
    await drain(h);
    expect(inbox).toHaveLength(1);
    await h.db.pool.query(`UPDATE tenants SET disable_emails = false WHERE id = $1`, [h.production.id]);
  });

  it('skips when the switch is turned on after the message was queued', async () => {
    const h = harness();
    inbox.length = 0;
    await emit(h, h.tenant.id, 'invoice.finalized', 'inv_late', invoiceData('inv_late'));
    await service.tasks['outbox.dispatch']!({}); // queued, not sent yet
    await h.db.pool.query(`UPDATE tenants SET disable_emails = true WHERE id = $1`, [h.tenant.id]);
    await drain(h);
    await h.db.pool.query(`UPDATE tenants SET disable_emails = false WHERE id = $1`, [h.tenant.id]);
    expect(inbox).toEqual([]);
    const [logged] = await emailsOf(h, h.tenant.apiKey, '&object_id=inv_late');
    expect(logged).toMatchObject({ status: 'SKIPPED', skip_reason: 'EMAILS_DISABLED' });
  });

  it('records a bounce as failed, a missing recipient as skipped, and retries a transient failure', async () => {
    const h = harness();
    inbox.length = 0;
    await emit(h, h.tenant.id, 'invoice.finalized', 'inv_bounce', invoiceData('inv_bounce', { invoicing_emails: ['bounce@customer.test'] }));
    await emit(h, h.tenant.id, 'invoice.finalized', 'inv_nobody', invoiceData('inv_nobody', { invoicing_emails: [], customer_id: 'cus_unknown' }));
    await drain(h);
    const [bounced] = await emailsOf(h, h.tenant.apiKey, '&object_id=inv_bounce');
    expect(bounced).toMatchObject({ status: 'FAILED', attempt_count: 1, last_error: expect.stringContaining('550') });
    const [nobody] = await emailsOf(h, h.tenant.apiKey, '&object_id=inv_nobody');
    expect(nobody).toMatchObject({ status: 'SKIPPED', skip_reason: 'NO_RECIPIENT', recipients: [] });

    pdfFailuresLeft = 1;
    await emit(h, h.tenant.id, 'invoice.finalized', 'inv_retry', invoiceData('inv_retry'));
    await drain(h);
    let [retried] = await emailsOf(h, h.tenant.apiKey, '&object_id=inv_retry');
    expect(retried).toMatchObject({ status: 'PENDING', attempt_count: 1, last_error: 'the PDF of the invoice is not rendered yet' });
    // the job queue runs it again after its backoff; run that retry now
    await service.tasks['emails.send']!({ tenant_id: h.tenant.id, email_id: retried!.id });
    [retried] = await emailsOf(h, h.tenant.apiKey, '&object_id=inv_retry');
    expect(retried).toMatchObject({ status: 'SENT', attempt_count: 2 });
    expect(inbox.filter((m) => m.to.includes('ap@customer.test'))).toHaveLength(1);
  });

  it('validates the list query', async () => {
    const h = harness();
    const res = await h.request('GET', '/api/v1/emails?status=LOST');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('status') });
    const order = await h.request('GET', '/api/v1/emails?order_by=subject.asc');
    expect(order.statusCode).toBe(400);
    expect(order.json().message).toContain('order_by');
  });
});
