import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpInbox, type ReceivedMail, type SmtpInbox } from '../harness/smtp-inbox.js';
import { createHarness, type Harness } from '../harness/app.js';
import { createCustomer, createDraft } from '../http/invoices-support.js';

/**
 * The whole path with real parts: a finalized invoice is rendered to PDF, the outbox relay turns
 * `invoice.finalized` into an e-mail job, and nodemailer delivers it to a real SMTP server on
 * loopback with the same PDF bytes the download endpoint serves.
 */
const inbox: ReceivedMail[] = [];
let smtp: SmtpInbox;
let h: Harness;

beforeAll(async () => {
  smtp = await startSmtpInbox(inbox);
  const port = smtp.port;
  h = await createHarness({ smtp: { host: '127.0.0.1', port, secure: false, from: 'billing@tally.test' } });
});
afterAll(async () => {
  await h.service.app.close();
  await h.db.drop();
  await smtp.close();
});

/** Runs jobs until nothing new arrives (jobs enqueue further jobs: PDF, relay, send). */
async function settle(): Promise<void> {
  for (let round = 0; round < 6; round++) await h.drainJobs();
}

/** The base64 body of the MIME part whose content type is application/pdf. */
function pdfAttachment(raw: string): Buffer {
  const part = raw.split(/\r?\n--/).find((p) => /Content-Type: application\/pdf/i.test(p));
  if (!part) throw new Error('no PDF part');
  const body = part.split(/\r?\n\r?\n/).slice(1).join('\n');
  return Buffer.from(body.replace(/\s+/g, ''), 'base64');
}

describe('invoice e-mail', () => {
  it('mails the finalized invoice with its PDF to the invoicing e-mails', async () => {
    const customer = await createCustomer(h, { name: 'Mail Co', billing_email: 'billing@mail.test', invoicing_emails: ['ap@mail.test'] });
    const draft = await createDraft(h, customer.id);
    expect((await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`)).statusCode).toBe(200);
    await settle();
    const message = inbox.find((m) => m.to.includes('ap@mail.test'));
    expect(message, JSON.stringify(inbox.map((m) => m.to))).toBeDefined();
    expect(message!.raw).toMatch(/Content-Type: text\/plain/i);
    expect(message!.raw).toMatch(/Content-Type: text\/html/i);
    const download = await h.request('GET', `/api/v1/invoices/${draft.invoice.id}/download`);
    expect(download.statusCode).toBe(200);
    expect(pdfAttachment(message!.raw).equals(download.rawPayload)).toBe(true);
    const log = (await h.request('GET', '/api/v1/emails')).json();
    expect(log.data.some((e: { status: string; to: string[] }) => e.status === 'SENT')).toBe(true);
  });

  it('mails the hybrid PDF/A-3 (the XML inside) for a Factur-X entity, and the XML beside the PDF for a UBL one', async () => {
    const seller = { country: 'FR', vat_number: 'FR83404833048', address_line1: '8 avenue des Ternes', city: 'Paris', zip_code: '75017', bank_details: { account_holder: 'Seller SAS', iban: 'FR7630006000011234567890189' }, contact_name: 'Accounts team', contact_phone: '+33 1 23 45 67 89', contact_email: 'accounts@seller.test' };
    const billingAddress = { line1: '1 rue X', city: 'Paris', zip_code: '75001', country: 'FR' };
    const sent: Record<string, string> = {};
    for (const format of ['FACTURX', 'XRECHNUNG_UBL']) {
      const entity = await h.request('POST', '/api/v1/invoicing-entities', { body: { ...seller, legal_name: `Seller ${format}`, e_invoicing_format: format } });
      expect(entity.statusCode, entity.body).toBe(201);
      const to = `ap-${format.toLowerCase()}@mail.test`;
      const customer = await createCustomer(h, { name: `E-invoiced ${format}`, billing_email: to, invoicing_entity_id: entity.json().id, billing_address: billingAddress });
      const draft = await createDraft(h, customer.id);
      expect((await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`)).statusCode).toBe(200);
      await settle();
      const invoice = (await h.request('GET', `/api/v1/invoices/${draft.invoice.id}`)).json();
      expect(invoice.e_invoicing).toMatchObject({ format, status: 'VALID' });
      const message = inbox.find((m) => m.to.includes(to));
      expect(message, JSON.stringify(inbox.map((m) => m.to))).toBeDefined();
      const pdf = pdfAttachment(message!.raw);
      // the mailed PDF is the stored accounting PDF, byte for byte
      expect(pdf.equals((await h.request('GET', `/api/v1/invoices/${draft.invoice.id}/download`)).rawPayload)).toBe(true);
      sent[format] = message!.raw;
      if (format === 'FACTURX') {
        expect(pdf.includes(Buffer.from('factur-x.xml'))).toBe(true);
        // its credit note's mail carries the credit note's hybrid PDF, the one the API serves
        const mailsBefore = inbox.filter((m) => m.to.includes(to)).length;
        const created = await h.request('POST', '/api/v1/credit-notes', { body: { invoice_id: invoice.id, reason: 'Refund', credit_type: 'CREDIT_TO_BALANCE', lines: [{ invoice_line_id: invoice.line_items[0].id, amount: '10.00' }] } });
        expect(created.statusCode, created.body).toBe(201);
        const note = (await h.request('POST', `/api/v1/credit-notes/${created.json().id}/finalize`)).json();
        expect(note.e_invoicing).toMatchObject({ format: 'FACTURX', status: 'VALID' });
        await settle();
        const noteMails = inbox.filter((m) => m.to.includes(to));
        expect(noteMails).toHaveLength(mailsBefore + 1);
        const notePdf = pdfAttachment(noteMails.at(-1)!.raw);
        expect(notePdf.includes(Buffer.from('factur-x.xml'))).toBe(true);
        expect(notePdf.equals((await h.request('GET', `/api/v1/credit-notes/${note.id}/download`)).rawPayload)).toBe(true);
      } else {
        expect(pdf.includes(Buffer.from('factur-x.xml'))).toBe(false);
        expect(message!.raw).toMatch(new RegExp(`filename="?${invoice.invoice_number}\\.xml`));
      }
    }
    expect(sent.FACTURX).not.toMatch(/Content-Type: application\/xml/i);
  });

  it('sends nothing when the tenant disables e-mails, and logs the skip', async () => {
    await h.request('PATCH', '/api/v1/tenant', { body: { disable_emails: true } });
    const before = inbox.length;
    const customer = await createCustomer(h, { name: 'Quiet Co', billing_email: 'quiet@mail.test' });
    const draft = await createDraft(h, customer.id);
    expect((await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`)).statusCode).toBe(200);
    await settle();
    expect(inbox.length).toBe(before);
    const log = (await h.request('GET', '/api/v1/emails')).json();
    expect(log.data.some((e: { status: string }) => e.status === 'SKIPPED')).toBe(true);
  });
});
