// Invoices of subscription requests not made yet (docs/api.md, "Previews"): the first invoice of a
// subscription before creating it, and the next invoice after a plan change before making it,
// with its proration. Subscriptions builds the record the request would write (rolled back); the
// billing run's one preview path computes its invoice, so a preview and the real invoice agree.
import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, errorResponses } from '../../http/schemas.js';
import { notFound } from '../../kernel/errors.js';
import { ChangePlanRequest, changePlanExample, SubscriptionCreateRequest, subscriptionCreateExample, type ChangePlanInput, type CreateSubscriptionInput, type SubscriptionRecord } from '../subscriptions/index.js';
import type { InvoiceDetail } from './repository.js';
import { Invoice, invoiceToWire } from './schemas.js';
import * as ex from './examples.js';

/** Subscriptions' what-if records (passed in by the composition root: subscriptions' service routes test clocks). */
export interface SubscriptionWhatIf {
  previewCreate(tenantId: string, input: CreateSubscriptionInput): Promise<SubscriptionRecord>;
  previewChangePlan(tenantId: string, subscriptionId: string, input: ChangePlanInput): Promise<SubscriptionRecord>;
}

const NOTHING_STORED = 'Nothing is stored: no subscription, fee row, coupon redemption or event; `id` is "upcoming", status DRAFT, no number or due date.';

export function subscriptionPreviewRoutes(whatIf: SubscriptionWhatIf, invoiceOf: (tenantId: string, record: SubscriptionRecord) => Promise<InvoiceDetail | null>) {
  return (app: App) => {
    const tags = ['Subscriptions'];
    app.post('/api/v1/subscriptions/preview-invoice', {
      schema: {
        tags,
        operationId: 'preview_subscription_invoice',
        summary: 'The first invoice of a subscription before creating it',
        description:
          'Takes the body of `POST /api/v1/subscriptions`, checks it as creation does (the same 400s, naming the same fields) and answers the first invoice that subscription ' +
          'would get, computed as `GET /api/v1/subscriptions/{id}/upcoming-invoice` computes it (coupons and taxes included, usage none yet). ' + NOTHING_STORED +
          ' A subscription with nothing to invoice by its start (a start date in the future) is a 404 saying when it starts.',
        body: documented(SubscriptionCreateRequest, 'What `POST /api/v1/subscriptions` would be sent', subscriptionCreateExample),
        response: { 200: documented(Invoice, 'The first invoice as it would be issued', ex.upcomingInvoiceExample), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => {
      const tenantId = authOf(request).tenantId;
      const record = await whatIf.previewCreate(tenantId, request.body);
      const detail = await invoiceOf(tenantId, record);
      if (!detail) throw notFound(`invoice: the subscription would start on ${record.subscription.start_date} and has nothing to invoice before then`);
      return invoiceToWire(detail);
    });

    app.post('/api/v1/subscriptions/:subscription_id/change-plan/preview', {
      schema: {
        tags,
        operationId: 'preview_subscription_plan_change',
        summary: 'The next invoice after a plan change, before making it',
        description:
          'Takes the body of `POST /api/v1/subscriptions/{id}/change-plan`, runs the change as that operation does (the same 400s and 409s) and answers the subscription\'s ' +
          'next invoice as it would be after it: with IMMEDIATE, the credit for the unused days of the old fees and the new fees by day. Compare with ' +
          '`GET /api/v1/subscriptions/{id}/upcoming-invoice` for the invoice without the change. ' + NOTHING_STORED,
        params: Type.Object({ subscription_id: Type.String({ description: 'Subscription ID', examples: ['sub_01KKRNW4G0P3977S414S2FKJMX'] }) }),
        body: documented(ChangePlanRequest, 'What `POST /api/v1/subscriptions/{id}/change-plan` would be sent', changePlanExample),
        response: { 200: documented(Invoice, 'The next invoice as it would be issued after the change', ex.upcomingInvoiceExample), ...errorResponses([400, 401, 404, 409]) },
      },
    }, async (request) => {
      const tenantId = authOf(request).tenantId;
      const record = await whatIf.previewChangePlan(tenantId, request.params.subscription_id, request.body);
      const detail = await invoiceOf(tenantId, record);
      if (!detail) throw notFound('upcoming invoice');
      return invoiceToWire(detail);
    });
  };
}
