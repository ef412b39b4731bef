import { Type } from 'typebox';
import { iso, isoOrNull, Nullable } from '../../http/schemas.js';
import type { EmailRow } from './repository.js';

export const EMAIL_KINDS = ['INVOICE', 'PAYMENT_RECEIPT', 'CREDIT_NOTE', 'PAYMENT_FAILED'] as const;
export const EMAIL_STATUSES = ['PENDING', 'SENT', 'SKIPPED', 'FAILED'] as const;

export const EmailMessage = Type.Object({
  id: Type.String(),
  kind: Type.Enum(EMAIL_KINDS),
  event_id: Type.String({ description: 'The outbox event that caused the message' }),
  object_id: Nullable(Type.String()),
  customer_id: Nullable(Type.String()),
  recipients: Type.Array(Type.String()),
  sender_name: Type.String(),
  subject: Type.String(),
  status: Type.Enum(EMAIL_STATUSES),
  skip_reason: Nullable(Type.Enum(['EMAILS_DISABLED', 'NO_RECIPIENT'] as const)),
  attempt_count: Type.Integer(),
  last_error: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  sent_at: Nullable(Type.String({ format: 'date-time' })),
});

export function emailToWire(row: EmailRow) {
  return {
    id: row.id,
    kind: row.kind,
    event_id: row.event_id,
    object_id: row.object_id,
    customer_id: row.customer_id,
    recipients: row.recipients,
    sender_name: row.sender_name,
    subject: row.subject,
    status: row.status,
    skip_reason: row.skip_reason,
    attempt_count: row.attempt_count,
    last_error: row.last_error,
    created_at: iso(row.created_at),
    sent_at: isoOrNull(row.sent_at),
  };
}
