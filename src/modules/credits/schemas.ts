import { Type } from 'typebox';
import { Decimal } from 'decimal.js';
import { Dec, formatMinor, minorToDecimal } from '../../kernel/money.js';
import { DecimalString, Name, Nullable, iso, isoOrNull } from '../../http/schemas.js';
import type { EntryRow, GrantWithRemaining, TopUpSettingsRow } from './repository.js';
import type { CreditBalance } from './service.js';

const Amount = (description: string) => Type.String({ description: `${description}; decimal string with the currency's minor-unit digits`, examples: ['40.00'] });
const GrantStatusSchema = Type.Union([Type.Literal('PENDING_PAYMENT'), Type.Literal('ACTIVE'), Type.Literal('VOID')]);
const GrantTypeSchema = Type.Union([Type.Literal('PAID'), Type.Literal('PROMOTIONAL')], {
  description: 'PAID: bought on an invoice, usable once that invoice is paid. PROMOTIONAL: given, usable at once.',
});
const AppliesToSchema = Type.Union([Type.Literal('ALL'), Type.Literal('USAGE'), Type.Literal('METRICS')], {
  description: 'What the grant may pay: ALL fees, USAGE fees only, or the usage of the METRICS in `metric_ids`.',
});
export const EntryTypeSchema = Type.Union([Type.Literal('GRANT'), Type.Literal('CONSUMPTION'), Type.Literal('EXPIRY'), Type.Literal('VOID'), Type.Literal('REFUND')]);

export const CreateGrantBody = Type.Object({
  name: Name(),
  type: GrantTypeSchema,
  amount: Type.Optional(DecimalString('value in the customer\'s currency, e.g. "100.00"; or give credit_unit instead')),
  credit_unit: Type.Optional(Type.Object({
    name: Type.String({ minLength: 1, maxLength: 64, description: 'the unit\'s name, e.g. "credits"' }),
    amount: DecimalString('how many units, e.g. "1000"'),
    rate: DecimalString('currency per unit, e.g. "0.0125"; the value (amount x rate) is rounded once to the currency\'s minor unit'),
  }, { additionalProperties: false })),
  priority: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: '1 is consumed first; default 100' })),
  effective_at: Type.Optional(Type.String({ description: 'RFC 3339; default now. The grant pays nothing before.' })),
  expires_at: Type.Optional(Nullable(Type.String({ description: 'RFC 3339, exclusive; null or absent: never expires' }))),
  applies_to: Type.Optional(AppliesToSchema),
  metric_ids: Type.Optional(Type.Array(Type.String(), { maxItems: 100, description: 'with applies_to METRICS: the billable metrics whose usage it may pay' })),
}, { additionalProperties: false });

export const CreditGrant = Type.Object({
  id: Type.String(),
  customer_id: Type.String(),
  name: Type.String(),
  type: GrantTypeSchema,
  status: GrantStatusSchema,
  source: Type.Union([Type.Literal('API'), Type.Literal('AUTO_TOP_UP')]),
  currency: Type.String(),
  amount: Amount('the grant\'s value'),
  remaining: Amount('the ledger sum of this grant: what it can still pay'),
  credit_unit: Nullable(Type.Object({
    name: Type.String(),
    amount: Type.String(),
    rate: Type.String(),
    remaining: Type.String({ description: 'remaining / rate, shown to 6 decimals at most (rounded down); the ledger itself is in the currency' }),
  })),
  priority: Type.Integer(),
  effective_at: Type.String(),
  expires_at: Nullable(Type.String()),
  applies_to: AppliesToSchema,
  metric_ids: Type.Array(Type.String()),
  invoice_id: Nullable(Type.String({ description: 'PAID grants: the invoice that sells it' })),
  created_at: Type.String(),
  voided_at: Nullable(Type.String()),
});

export function grantToWire(grant: GrantWithRemaining) {
  const money = (minor: bigint) => formatMinor(minor, grant.currency);
  return {
    id: grant.id,
    customer_id: grant.customer_id,
    name: grant.name,
    type: grant.grant_type,
    status: grant.status,
    source: grant.source,
    currency: grant.currency,
    amount: money(grant.amount_minor),
    remaining: money(grant.remaining_minor),
    credit_unit: grant.unit_name === null ? null : {
      name: grant.unit_name,
      amount: grant.unit_amount!,
      rate: grant.unit_rate!,
      remaining: minorToDecimal(grant.remaining_minor, grant.currency).div(new Dec(grant.unit_rate!)).toDecimalPlaces(6, Decimal.ROUND_DOWN).toString(),
    },
    priority: grant.priority,
    effective_at: iso(grant.effective_at),
    expires_at: isoOrNull(grant.expires_at),
    applies_to: grant.applies_to,
    metric_ids: grant.metric_ids,
    invoice_id: grant.invoice_id,
    created_at: iso(grant.created_at),
    voided_at: isoOrNull(grant.voided_at),
  };
}

export const LedgerEntry = Type.Object({
  id: Type.String(),
  sequence: Type.String({ description: 'position in the customer\'s ledger (append order), as a string of digits' }),
  customer_id: Type.String(),
  grant_id: Type.String(),
  type: EntryTypeSchema,
  amount: Amount('signed: GRANT and REFUND add, CONSUMPTION, EXPIRY and VOID take away'),
  currency: Type.String(),
  invoice_id: Nullable(Type.String()),
  invoice_line_id: Nullable(Type.String()),
  effective_at: Type.String({ description: 'from when it counts in the balance' }),
  created_at: Type.String(),
});

export function entryToWire(entry: EntryRow) {
  return {
    id: entry.id,
    sequence: entry.seq.toString(),
    customer_id: entry.customer_id,
    grant_id: entry.grant_id,
    type: entry.entry_type,
    amount: formatMinor(entry.amount_minor, entry.currency),
    currency: entry.currency,
    invoice_id: entry.invoice_id,
    invoice_line_id: entry.invoice_line_id,
    effective_at: iso(entry.effective_at),
    created_at: iso(entry.created_at),
  };
}

export const CreditBalanceSchema = Type.Object({
  customer_id: Type.String(),
  currency: Type.String(),
  balance: Amount('the sum of the ledger now'),
  accrued_usage: Amount('usage charges (tax included) accrued in the current periods, from the upcoming invoices'),
  projected_balance: Amount('balance less accrued_usage; negative when usage has outrun the credits'),
  pending_top_ups: Amount('paid grants waiting for their invoice to be paid (not in balance)'),
  as_of: Type.String(),
});

export function balanceToWire(customerId: string, result: CreditBalance & { pendingMinor: bigint }, at: Date) {
  const money = (minor: bigint) => formatMinor(minor, result.currency);
  return {
    customer_id: customerId,
    currency: result.currency,
    balance: money(result.balance),
    accrued_usage: money(result.accrued),
    projected_balance: money(result.projected),
    pending_top_ups: money(result.pendingMinor),
    as_of: iso(at),
  };
}

export const TopUpSettingsBody = Type.Object({
  enabled: Type.Boolean(),
  threshold: DecimalString('below this balance a top-up is bought, e.g. "10.00"'),
  amount: DecimalString('value of each top-up, e.g. "50.00"'),
  priority: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'of the grants it buys; default 100' })),
  expires_after_days: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 3650, description: 'the grants it buys expire this many days after purchase; null: never' }))),
}, { additionalProperties: false });

export const TopUpSettings = Type.Object({
  customer_id: Type.String(),
  enabled: Type.Boolean(),
  currency: Type.String(),
  threshold: Type.String(),
  amount: Type.String(),
  priority: Type.Integer(),
  expires_after_days: Nullable(Type.Integer()),
  updated_at: Type.String(),
});

export function topUpToWire(row: TopUpSettingsRow & { currency: string }) {
  return {
    customer_id: row.customer_id,
    enabled: row.enabled,
    currency: row.currency,
    threshold: formatMinor(row.threshold_minor, row.currency),
    amount: formatMinor(row.amount_minor, row.currency),
    priority: row.priority,
    expires_after_days: row.expires_after_days,
    updated_at: iso(row.updated_at),
  };
}
