// Examples of the OpenAPI document: the e-mail sent for invoice INV-0002 of Acme SAS.
import type { Static } from 'typebox';
import type { EmailMessage } from './schemas.js';

export const EMAIL_ID = 'eml_01KKRNW4G0MX21JC33NCQSD63N';

export const emailExample: Static<typeof EmailMessage> = {
  id: EMAIL_ID,
  kind: 'INVOICE',
  event_id: 'evt_01KKRNW4G0P3SBJMJ869H6QC89',
  object_id: 'inv_01KKRNW4G02VQRWZ659SDQV12J',
  customer_id: 'cus_01KKRNW4G0TGQFXZ8S1GED4KMJ',
  recipients: ['billing@acme.example'],
  sender_name: 'Tally Billing SAS',
  subject: 'Invoice INV-0002 from Tally Billing SAS',
  status: 'SENT',
  skip_reason: null,
  attempt_count: 1,
  last_error: null,
  created_at: '2026-04-02T00:00:06.114Z',
  sent_at: '2026-04-02T00:00:09.871Z',
};

/** The receipt of a customer without any e-mail address. */
const skippedExample: Static<typeof EmailMessage> = {
  ...emailExample,
  id: 'eml_01KKV2D4N8B6Q0X3R5T7W9Y1ZA',
  kind: 'PAYMENT_RECEIPT',
  event_id: 'evt_01KKV2D4N8QW8E2R4T6Y8V0P1A',
  object_id: 'inv_01KKV2D4N8F3G5H7J9K1M3N5P7',
  customer_id: 'cus_01KKV2D4N8S2T4V6W8X0Y2Z4A6',
  recipients: [],
  subject: 'Receipt for invoice INV-0003 from Tally Billing SAS',
  status: 'SKIPPED',
  skip_reason: 'NO_RECIPIENT',
  attempt_count: 0,
  created_at: '2026-04-20T15:12:41.090Z',
  sent_at: null,
};

export const emailListExample = { data: [skippedExample, emailExample], pagination_meta: { page: 0, per_page: 10, total_items: 2, total_pages: 1 } };
