import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, errorResponses, listResponse, orderByQuery, PageQuery } from '../../http/schemas.js';
import type { EmailService } from './service.js';
import { EMAIL_KINDS, EMAIL_STATUSES, EmailMessage, emailToWire } from './schemas.js';
import * as ex from './examples.js';

/** When messages are written and how they move, said by both operations. */
const EMAIL_RULES =
  'A message is logged for `invoice.finalized` (the invoice, with its PDF and pay link), `payment.succeeded` (a receipt, one per payment transaction), `invoice.paid` ' +
  '(a receipt, unless a provider payment with its own receipt settled the invoice), `invoice.payment_failed` (with the pay link) and `credit_note.finalized` (the credit note). ' +
  'Recipients: the event\'s invoicing e-mails or billing e-mail, else the customer\'s. Status: PENDING -> SENT; SKIPPED when the tenant disabled e-mails (EMAILS_DISABLED) ' +
  'or there is no recipient (NO_RECIPIENT); FAILED at once when the mail server refuses it (5xx, `last_error` has its answer), or after 8 attempts for other failures.';

export function emailRoutes(service: EmailService) {
  return (app: App) => {
    const tags = ['Emails'];
    app.get('/api/v1/emails', {
      schema: {
        tags,
        operationId: 'list_emails',
        summary: 'List customer e-mails',
        description:
          'The log of e-mails sent (or not) to customers, newest first unless `order_by=created_at.asc`. Filters: `status`, `kind`, `customer_id`, `object_id` ' +
          '(the invoice or credit note). Paged with `page` (0-based) and `per_page` (1-100, default 10). ' + EMAIL_RULES,
        querystring: Type.Object({
          status: Type.Optional(Type.Enum(EMAIL_STATUSES)),
          kind: Type.Optional(Type.Enum(EMAIL_KINDS)),
          customer_id: Type.Optional(Type.String()),
          object_id: Type.Optional(Type.String({ description: 'Invoice or credit note ID' })),
          order_by: orderByQuery(['created_at'], 'created_at.desc'),
          ...PageQuery,
        }),
        response: { 200: documented(listResponse(EmailMessage), 'One page of e-mails', ex.emailListExample), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.list(authOf(request).tenantId, request.query);
      return { data: page.data.map(emailToWire), pagination_meta: page.pagination_meta };
    });

    app.get('/api/v1/emails/:email_id', {
      schema: {
        tags,
        operationId: 'get_email',
        summary: 'Get a customer e-mail',
        description: 'One logged e-mail: recipients, subject, status and attempts (the body is rendered from the event when sending and is not shown). Another tenant\'s e-mail is a 404. ' + EMAIL_RULES,
        params: Type.Object({ email_id: Type.String({ description: 'Email ID', examples: [ex.EMAIL_ID] }) }),
        response: { 200: documented(EmailMessage, 'The e-mail', ex.emailExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => emailToWire(await service.get(authOf(request).tenantId, request.params.email_id)));
  };
}
