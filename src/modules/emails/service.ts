import type { Clock } from '../../kernel/clock.js';
import { notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { paginationMeta, parseOrderBy, pageRequest, type Page } from '../../kernel/paging.js';
import type { Pool, Queryable } from '../../db/pool.js';
import type { Tx } from '../../db/tx.js';
import { enqueueJob } from '../../jobs/queue.js';
import { EmailSendError, type Mailer, type OutgoingEmail } from '../../adapters/email/mailer.js';
import { findTenantProfile } from '../accounts/index.js';
import * as repo from './repository.js';
import type { EmailRow, EmailStatus } from './repository.js';
import { EMAIL_KIND_BY_EVENT, renderEmail, type EmailKind } from './templates.js';

export const SEND_EMAIL_TASK = 'emails.send';
/** Attempts of one message before it is marked FAILED; the job queue spaces them out (exponential). */
export const EMAIL_MAX_ATTEMPTS = 8;

/** The tenant's e-mail switch and its organization's name (the sender name of last resort). */
async function tenantEmailSettings(db: Queryable, tenantId: string): Promise<{ disable_emails: boolean; organization_name: string }> {
  const profile = await findTenantProfile(db, tenantId);
  return profile ? { disable_emails: profile.disable_emails, organization_name: profile.organization_name } : { disable_emails: false, organization_name: '' };
}

/** What the e-mails need from other modules, passed in so this module depends on none of them. */
export interface EmailPorts {
  /** The finalized invoice's PDF; throws while it is not rendered yet, and the send is retried. */
  invoicePdf(tenantId: string, invoiceId: string): Promise<Buffer>;
  /** The credit note's PDF, or null when there is none. */
  creditNotePdf(tenantId: string, creditNoteId: string): Promise<Buffer | null>;
  /** The structured e-invoice (XML) sent beside the PDF when the PDF does not carry it (UBL formats, docs/einvoicing.md); null when there is none. */
  eInvoiceXml?(tenantId: string, objectId: string, baseName: string): Promise<{ content: Buffer; filename: string } | null>;
  /** Where the customer's billing mail goes. */
  customerEmails(db: Queryable, tenantId: string, customerId: string): Promise<string[]>;
  /** Legal name of the invoicing entity that issued the invoice. */
  sellerName(db: Queryable, tenantId: string, invoiceId: string): Promise<string | undefined>;
  /** The invoice's number and what is still due on it now (a receipt names them; payment events carry neither). */
  invoiceFacts(db: Queryable, tenantId: string, invoiceId: string): Promise<{ invoice_number: string | null; amount_remaining: string; currency: string } | undefined>;
  /** The invoice's hosted pay link (payments' payUrlFor), null when it is not payable; absent, e-mails carry none. */
  payUrl?(db: Queryable, tenantId: string, invoiceId: string): Promise<string | null>;
  /** Whether a provider payment (which has its own receipt) settled the invoice; then `invoice.paid` mails nothing. */
  settledByProviderPayment?(db: Queryable, tenantId: string, invoiceId: string): Promise<boolean>;
}

/** An outbox event as the e-mail consumer reads it (structurally the relay's OutboxRecord). */
export interface EmailSourceEvent {
  id: string;
  tenant_id: string;
  event_type: string;
  object_id: string | null;
  payload: Record<string, unknown>;
  /** When the event happened (a payment receipt's date). */
  created_at?: Date;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);
const textList = (value: unknown): string[] => (Array.isArray(value) ? value.map(text).filter((v): v is string => v !== undefined) : []);

export interface ListEmailsQuery {
  page?: number;
  per_page?: number;
  order_by?: string;
  status?: EmailStatus;
  kind?: EmailKind;
  customer_id?: string;
  object_id?: string;
}

export function createEmailService(deps: { pool: Pool; clock: Clock; mailer: Mailer; ports: EmailPorts }) {
  const { pool, clock, mailer, ports } = deps;

  /** Recipients named in the event data win; otherwise the customer's invoicing e-mails. */
  async function recipientsFor(db: Queryable, tenantId: string, data: Record<string, unknown>): Promise<string[]> {
    const named = textList(data.invoicing_emails);
    if (named.length > 0) return named;
    const billing = text(data.billing_email);
    if (billing) return [billing];
    const customerId = text(data.customer_id);
    return customerId ? ports.customerEmails(db, tenantId, customerId) : [];
  }

  /**
   * The event data the message is rendered from, with what the event does not carry: the pay
   * link of an invoice, the invoice's number and what is still due for a payment receipt.
   * Undefined when the event mails nothing: an `invoice.paid` settled by a provider payment (that
   * payment's receipt was sent), a payment whose receipt already exists (one per transaction).
   */
  async function withFacts(tx: Tx, event: EmailSourceEvent): Promise<Record<string, unknown> | undefined> {
    const data = event.payload;
    const tenantId = event.tenant_id;
    const invoiceId = text(data.invoice_id) ?? (event.event_type === 'invoice.finalized' ? event.object_id ?? undefined : undefined);
    if (event.event_type === 'invoice.finalized' && invoiceId && ports.payUrl) return { ...data, pay_url: await ports.payUrl(tx, tenantId, invoiceId) };
    if (event.event_type === 'invoice.paid' && invoiceId && (await ports.settledByProviderPayment?.(tx, tenantId, invoiceId))) return undefined;
    if (event.event_type === 'payment.succeeded') {
      if (event.object_id && (await repo.hasEmailFor(tx, tenantId, 'PAYMENT_RECEIPT', event.object_id))) return undefined;
      const facts = invoiceId ? await ports.invoiceFacts(tx, tenantId, invoiceId) : undefined;
      return { ...data, invoice_number: facts?.invoice_number ?? null, amount_remaining: facts?.amount_remaining ?? null, paid_at: event.created_at?.toISOString() ?? null };
    }
    return data;
  }

  async function senderFor(db: Queryable, tenantId: string, data: Record<string, unknown>, organizationName: string): Promise<string> {
    const named = text(data.invoicing_entity_name);
    if (named) return named;
    const invoiceId = text(data.invoice_id);
    const legalName = invoiceId ? await ports.sellerName(db, tenantId, invoiceId) : undefined;
    return legalName ?? organizationName;
  }

  /**
   * The e-mail consumer of the outbox: a log row for every event that mails a customer. With
   * the tenant's `disable_emails` on, or nobody to write to, the row records the skip instead.
   */
  async function handleEvent(tx: Tx, event: EmailSourceEvent): Promise<void> {
    const kind = EMAIL_KIND_BY_EVENT[event.event_type];
    if (!kind) return;
    const tenantId = event.tenant_id;
    const data = await withFacts(tx, event);
    if (!data) return;
    const settings = await tenantEmailSettings(tx, tenantId);
    const recipients = await recipientsFor(tx, tenantId, data);
    const senderName = await senderFor(tx, tenantId, data, settings.organization_name);
    const skipReason = settings.disable_emails ? 'EMAILS_DISABLED' : recipients.length === 0 ? 'NO_RECIPIENT' : null;
    const row: EmailRow = {
      id: newId('emailMessage', clock.now().getTime()),
      kind,
      event_id: event.id,
      object_id: event.object_id,
      customer_id: text(data.customer_id) ?? null,
      recipients,
      sender_name: senderName,
      subject: renderEmail(kind, data, senderName).subject,
      payload: data,
      status: skipReason ? 'SKIPPED' : 'PENDING',
      skip_reason: skipReason,
      attempt_count: 0,
      last_error: null,
      smtp_message_id: null,
      created_at: clock.now(),
      sent_at: null,
    };
    if ((await repo.insertEmail(tx, tenantId, row)) && !skipReason) {
      await enqueueJob(tx, SEND_EMAIL_TASK, { tenant_id: tenantId, email_id: row.id }, { jobKey: `${SEND_EMAIL_TASK}:${row.id}`, maxAttempts: EMAIL_MAX_ATTEMPTS + 2 });
    }
  }

  async function attachmentsFor(tenantId: string, email: EmailRow): Promise<OutgoingEmail['attachments']> {
    const data = email.payload;
    if (email.kind === 'INVOICE') {
      const invoiceId = text(data.invoice_id) ?? email.object_id ?? '';
      const content = await ports.invoicePdf(tenantId, invoiceId);
      const xml = await ports.eInvoiceXml?.(tenantId, invoiceId, text(data.invoice_number) ?? invoiceId);
      return [
        { filename: `${text(data.invoice_number) ?? invoiceId}.pdf`, content, contentType: 'application/pdf' },
        ...(xml ? [{ filename: xml.filename, content: xml.content, contentType: 'application/xml' }] : []),
      ];
    }
    if (email.kind === 'CREDIT_NOTE') {
      const creditNoteId = text(data.credit_note_id) ?? email.object_id ?? '';
      const content = await ports.creditNotePdf(tenantId, creditNoteId);
      const xml = await ports.eInvoiceXml?.(tenantId, creditNoteId, text(data.credit_note_number) ?? creditNoteId);
      return [
        ...(content ? [{ filename: `${text(data.credit_note_number) ?? creditNoteId}.pdf`, content, contentType: 'application/pdf' }] : []),
        ...(xml ? [{ filename: xml.filename, content: xml.content, contentType: 'application/xml' }] : []),
      ];
    }
    return [];
  }

  /**
   * Job `emails.send`: sends one logged message. A refusal by the SMTP server (5xx, a bounce) is
   * final; other failures throw so the job queue retries, until EMAIL_MAX_ATTEMPTS is reached.
   */
  async function send(payload: Record<string, unknown>): Promise<void> {
    const tenantId = String(payload.tenant_id);
    const email = await repo.findEmail(pool, tenantId, String(payload.email_id));
    if (!email || email.status !== 'PENDING') return;
    const base = { skip_reason: null, smtp_message_id: null, sent_at: null };
    // the switch may have been turned on since the message was queued
    if ((await tenantEmailSettings(pool, tenantId)).disable_emails) {
      await repo.updateEmail(pool, tenantId, email.id, { ...base, status: 'SKIPPED', skip_reason: 'EMAILS_DISABLED', attempt_count: email.attempt_count, last_error: null });
      return;
    }
    const attempt = email.attempt_count + 1;
    try {
      const rendered = renderEmail(email.kind, email.payload, email.sender_name);
      const sent = await mailer.send({ fromName: email.sender_name, to: email.recipients, ...rendered, attachments: await attachmentsFor(tenantId, email) });
      await repo.updateEmail(pool, tenantId, email.id, { ...base, status: 'SENT', attempt_count: attempt, last_error: null, smtp_message_id: sent.messageId, sent_at: clock.now() });
    } catch (error) {
      const permanent = error instanceof EmailSendError && error.permanent;
      const final = permanent || attempt >= EMAIL_MAX_ATTEMPTS;
      await repo.updateEmail(pool, tenantId, email.id, { ...base, status: final ? 'FAILED' : 'PENDING', attempt_count: attempt, last_error: (error as Error).message.slice(0, 1000) });
      if (!final) throw error;
    }
  }

  async function list(tenantId: string, query: ListEmailsQuery): Promise<Page<EmailRow>> {
    const page = pageRequest(query.page, query.per_page);
    const order = parseOrderBy(query.order_by, ['created_at'] as const, { column: 'created_at', direction: 'desc' });
    const filter = { status: query.status, kind: query.kind, customerId: query.customer_id, objectId: query.object_id };
    const { rows, total } = await repo.listEmails(pool, tenantId, filter, page, order.direction === 'asc' ? 'ASC' : 'DESC');
    return { data: rows, pagination_meta: paginationMeta(page, total) };
  }

  async function get(tenantId: string, emailId: string): Promise<EmailRow> {
    const row = await repo.findEmail(pool, tenantId, emailId);
    if (!row) throw notFound('email');
    return row;
  }

  return { outboxConsumer: { name: 'emails', handle: handleEvent }, send, list, get };
}

export type EmailService = ReturnType<typeof createEmailService>;
