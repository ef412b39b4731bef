import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { errorResponses, listResponse, orderByQuery, PageQuery } from '../../http/schemas.js';
import type { EmailService } from './service.js';
import { EMAIL_KINDS, EMAIL_STATUSES, EmailMessage, emailToWire } from './schemas.js';

export function emailRoutes(service: EmailService) {
  return (app: App) => {
    const tags = ['Emails'];
    app.get('/api/v1/emails', {
      schema: {
        tags,
        operationId: 'list_emails',
        querystring: Type.Object({
          status: Type.Optional(Type.Enum(EMAIL_STATUSES)),
          kind: Type.Optional(Type.Enum(EMAIL_KINDS)),
          customer_id: Type.Optional(Type.String()),
          object_id: Type.Optional(Type.String({ description: 'Invoice or credit note ID' })),
          order_by: orderByQuery(['created_at'], 'created_at.desc'),
          ...PageQuery,
        }),
        response: { 200: listResponse(EmailMessage), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.list(authOf(request).tenantId, request.query);
      return { data: page.data.map(emailToWire), pagination_meta: page.pagination_meta };
    });

    app.get('/api/v1/emails/:email_id', {
      schema: { tags, operationId: 'get_email', params: Type.Object({ email_id: Type.String({ description: 'Email ID' }) }), response: { 200: EmailMessage, ...errorResponses([401, 404]) } },
    }, async (request) => emailToWire(await service.get(authOf(request).tenantId, request.params.email_id)));
  };
}
