import { Type } from 'typebox';
import { formatMinor } from '../../kernel/money.js';
import { iso, Nullable, PaginationMeta } from '../../http/schemas.js';
import type { CustomerRow } from '../customers/index.js';
import type { InvoiceDetail } from '../invoices/index.js';
import { MAX_EXPIRES_IN_SECONDS, MIN_EXPIRES_IN_SECONDS, DEFAULT_EXPIRES_IN_SECONDS, type IssuedPortalToken } from './tokens-service.js';
import type { PortalSubscription, PortalSubscriptionUsage } from './views-service.js';

export const PortalTokenRequest = Type.Object(
  {
    expires_in_seconds: Type.Optional(Type.Integer({
      minimum: MIN_EXPIRES_IN_SECONDS,
      maximum: MAX_EXPIRES_IN_SECONDS,
      description: `Token lifetime in seconds (${MIN_EXPIRES_IN_SECONDS}..${MAX_EXPIRES_IN_SECONDS}, default ${DEFAULT_EXPIRES_IN_SECONDS})`,
    })),
  },
  { additionalProperties: false },
);

export const CustomerPortalTokenResponse = Type.Object({
  token: Type.String({ description: 'Opaque portal token; send it as x-portal-token or ?token=' }),
  portal_url: Type.String({ description: 'The customer portal page, token included' }),
  expires_at: Type.String({ format: 'date-time' }),
});

export const RevokedTokensResponse = Type.Object({ revoked: Type.Integer({ minimum: 0, description: 'How many live tokens were revoked' }) });

export function tokenToWire(issued: IssuedPortalToken) {
  return { token: issued.token, portal_url: issued.portalUrl, expires_at: iso(issued.expiresAt) };
}

export const PortalCustomer = Type.Object({
  id: Type.String(),
  name: Type.String(),
  alias: Nullable(Type.String()),
  billing_email: Nullable(Type.String()),
  currency: Type.String(),
  balance: Type.String({ description: 'Credit balance, decimal string in the customer currency' }),
});

export function customerToWire(row: CustomerRow) {
  return { id: row.id, name: row.name, alias: row.alias, billing_email: row.billing_email, currency: row.currency, balance: formatMinor(row.balance_minor, row.currency) };
}

export const PortalSubscriptionSchema = Type.Object({
  id: Type.String(),
  plan_id: Type.String(),
  plan_name: Type.String(),
  plan_version: Type.Integer(),
  status: Type.String(),
  currency: Type.String(),
  start_date: Type.String({ format: 'date' }),
  end_date: Nullable(Type.String({ format: 'date' })),
  cancel_effective_date: Nullable(Type.String({ format: 'date' })),
  current_period_start: Type.String({ format: 'date' }),
  current_period_end: Nullable(Type.String({ format: 'date' })),
  next_invoice_date: Nullable(Type.String({ format: 'date' })),
});

export function subscriptionToWire(s: PortalSubscription) {
  const sub = s.subscription;
  return {
    id: sub.id, plan_id: sub.plan_id, plan_name: sub.plan_name, plan_version: sub.plan_version, status: sub.status, currency: sub.currency,
    start_date: sub.start_date, end_date: sub.end_date, cancel_effective_date: sub.cancel_effective_date,
    current_period_start: s.currentPeriodStart, current_period_end: s.currentPeriodEnd, next_invoice_date: s.nextInvoiceDate,
  };
}

export const PortalUsage = Type.Object({
  subscription_id: Type.String(),
  plan_name: Type.String(),
  period_start: Type.String({ format: 'date' }),
  period_end: Type.String({ format: 'date', description: 'Exclusive' }),
  usage: Type.Array(Type.Object({
    metric_id: Type.String(),
    metric_name: Type.String(),
    metric_code: Type.String(),
    total_value: Type.String({ description: 'Decimal string, as GET /api/v1/usage/customer/{id} shows it' }),
  })),
});

export function usageToWire(u: PortalSubscriptionUsage) {
  return {
    subscription_id: u.subscription.id, plan_name: u.subscription.plan_name, period_start: u.periodStart, period_end: u.periodEnd,
    usage: u.usage.map((m) => ({ metric_id: m.metricId, metric_name: m.metricName, metric_code: m.metricCode, total_value: m.totalValue })),
  };
}

export const PortalInvoice = Type.Object({
  id: Type.String(),
  invoice_number: Type.String(),
  status: Type.String(),
  invoice_date: Type.String({ format: 'date' }),
  due_date: Nullable(Type.String({ format: 'date' })),
  period_start: Nullable(Type.String({ format: 'date' })),
  period_end: Nullable(Type.String({ format: 'date' })),
  currency: Type.String(),
  total: Type.String(),
  amount_due: Type.String(),
  payment_status: Type.String(),
  e_invoice_format: Nullable(Type.String({
    description: 'The structured e-invoice\'s format (FACTURX, XRECHNUNG_CII, XRECHNUNG_UBL, PEPPOL_BIS) when the invoice has one: download it from `/api/v1/portal/invoices/{id}/e-invoice`; null: none',
  })),
});

export function invoiceToWire({ invoice, eInvoice }: InvoiceDetail) {
  return {
    id: invoice.id, invoice_number: invoice.invoice_number ?? invoice.id, status: invoice.status, invoice_date: invoice.invoice_date,
    due_date: invoice.due_date, period_start: invoice.period_start, period_end: invoice.period_end, currency: invoice.currency,
    total: formatMinor(invoice.total_minor, invoice.currency), amount_due: formatMinor(invoice.amount_due_minor, invoice.currency),
    payment_status: invoice.payment_status,
    e_invoice_format: eInvoice?.format ?? null,
  };
}

export const PortalInvoiceList = Type.Object({ data: Type.Array(PortalInvoice), pagination_meta: PaginationMeta });
