// Use cases of prepaid credits: grants, the ledger, the live balance, automatic top-ups.
import type { Decimal } from 'decimal.js';
import type { Clock } from '../../kernel/clock.js';
import { badRequest, conflict, notFound } from '../../kernel/errors.js';
import { currencyExponent, parseAmountMinor, parseDecimal } from '../../kernel/money.js';
import { paginationMeta, pageRequest, type Page } from '../../kernel/paging.js';
import type { Pool, Queryable } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { dueExpiries, grantValueMinor } from '../../domain/index.js';
import { clockOfCustomer, findCustomer, type CustomerRow, type TestClockTime } from '../customers/index.js';
import { metricExists } from '../metrics/index.js';
import { consumable, expireDue, lockLedger, voidGrantInTx } from './ledger.js';
import * as repo from './repository.js';
import type { AppliesTo, EntryRow, EntryType, GrantRow, GrantStatus, GrantType, GrantWithRemaining, TopUpSettingsRow } from './repository.js';
import { checkAutoTopUp, lockForPurchase, newGrantId, writeGrant } from './top-ups.js';

/**
 * What the customer's current periods have accrued in usage charges so far, tax included, in
 * minor units of `currency` (the invoices module's upcoming invoices; passed in by the
 * composition root, so the figure is the one the invoice will show).
 */
export type AccruedUsage = (db: Queryable, tenantId: string, customerId: string, currency: string) => Promise<bigint>;

/** The live balance of a customer, in minor units of its currency. */
export interface CreditBalance {
  currency: string;
  /** The ledger's sum at `at` (expiries due by then counted even if not recorded yet). */
  balance: bigint;
  /** balance less the current periods' accrued usage charges. */
  projected: bigint;
  /** The accrued usage charges subtracted. */
  accrued: bigint;
}

/**
 * The projected credit balance of a customer (alerts read it): read-only, on `db`. A customer of
 * another tenant, or none, is undefined.
 */
export type ProjectedCreditBalance = (db: Queryable, tenantId: string, customerId: string, at: Date) => Promise<CreditBalance | undefined>;

export interface CreateGrantInput {
  name: string;
  type: GrantType;
  amount?: string;
  credit_unit?: { name: string; amount: string; rate: string };
  priority?: number;
  effective_at?: string;
  expires_at?: string | null;
  applies_to?: AppliesTo;
  metric_ids?: string[];
}

export interface TopUpSettingsInput {
  enabled: boolean;
  threshold: string;
  amount: string;
  priority?: number;
  expires_after_days?: number | null;
}

export const DEFAULT_PRIORITY = 100;

function instant(text: string | undefined | null, field: string): Date | undefined {
  if (text === undefined || text === null) return undefined;
  const at = new Date(text);
  if (Number.isNaN(at.getTime()) || !/^\d{4}-\d{2}-\d{2}T/.test(text)) throw badRequest(`${field} must be an RFC 3339 date-time such as "2026-04-01T00:00:00Z", got '${text}'`);
  return at;
}

function money(text: string, currency: string, field: string): bigint {
  try {
    return parseAmountMinor(text, currency);
  } catch {
    throw badRequest(`${field} must be a decimal string with at most ${currencyExponent(currency)} decimals for ${currency}, such as "${(100).toFixed(currencyExponent(currency))}", got '${text}'`);
  }
}

function positiveDecimal(text: string, field: string, example: string): Decimal {
  let value: Decimal;
  try {
    value = parseDecimal(text);
  } catch {
    throw badRequest(`${field} must be a decimal string such as "${example}", got '${text}'`);
  }
  if (!value.isPositive() || value.isZero()) throw badRequest(`${field} must be above zero, such as "${example}", got '${text}'`);
  return value;
}

export function createCreditsService(deps: { pool: Pool; clock: Clock; accruedUsage: AccruedUsage; testClockTime?: TestClockTime }) {
  const { pool } = deps;

  /** The clock of a customer's credits: its test clock's frozen time, else the service clock (docs/test-clocks.md). */
  async function clockOf(db: Queryable, tenantId: string, customer: Pick<CustomerRow, 'test_clock_id'>): Promise<Clock> {
    return clockOfCustomer(db, tenantId, customer, deps.clock, deps.testClockTime);
  }

  async function customerOf(db: Queryable, tenantId: string, idOrAlias: string, lock = false): Promise<CustomerRow> {
    const customer = await findCustomer(db, tenantId, idOrAlias, { lock });
    if (!customer) throw notFound('customer');
    return customer;
  }

  /** Checks a grant request against the customer and builds its row (nothing written). */
  async function grantRow(db: Queryable, tenantId: string, customer: CustomerRow, input: CreateGrantInput, now: Date): Promise<GrantRow> {
    const currency = customer.currency;
    if ((input.amount === undefined) === (input.credit_unit === undefined)) {
      throw badRequest('give exactly one of amount (in the customer\'s currency, e.g. "100.00") or credit_unit (e.g. {"name": "credits", "amount": "1000", "rate": "0.0125"})');
    }
    let amountMinor: bigint;
    if (input.amount !== undefined) {
      amountMinor = money(input.amount, currency, 'amount');
    } else {
      const unit = input.credit_unit!;
      if (unit.name.trim() === '') throw badRequest('credit_unit.name must not be blank, such as "credits"');
      amountMinor = grantValueMinor(currency, { units: positiveDecimal(unit.amount, 'credit_unit.amount', '1000'), rate: positiveDecimal(unit.rate, 'credit_unit.rate', '0.0125') });
    }
    if (amountMinor <= 0n) throw badRequest(`the grant's value must be above zero in ${currency}; got ${input.amount ?? `${input.credit_unit!.amount} x ${input.credit_unit!.rate}`}`);
    const effectiveAt = instant(input.effective_at, 'effective_at') ?? now;
    const expiresAt = instant(input.expires_at, 'expires_at') ?? null;
    if (expiresAt && expiresAt.getTime() <= effectiveAt.getTime()) throw badRequest(`expires_at must be after effective_at (${effectiveAt.toISOString()}), got '${input.expires_at}'`);
    const appliesTo = input.applies_to ?? 'ALL';
    const metricIds = [...new Set(input.metric_ids ?? [])];
    if (appliesTo === 'METRICS' && metricIds.length === 0) throw badRequest('metric_ids must name at least one metric when applies_to is METRICS, such as ["bm_01..."]');
    if (appliesTo !== 'METRICS' && metricIds.length > 0) throw badRequest(`metric_ids is only for applies_to METRICS; got applies_to ${appliesTo}`);
    for (const [index, metricId] of metricIds.entries()) {
      if (!(await metricExists(db, tenantId, metricId))) throw badRequest(`metric_ids[${index}] '${metricId}' is not a billable metric of this tenant`);
    }
    return {
      id: newGrantId(now), customer_id: customer.id, name: input.name, currency, amount_minor: amountMinor,
      unit_name: input.credit_unit?.name ?? null, unit_amount: input.credit_unit?.amount ?? null, unit_rate: input.credit_unit?.rate ?? null,
      grant_type: input.type, priority: input.priority ?? DEFAULT_PRIORITY, effective_at: effectiveAt, expires_at: expiresAt,
      applies_to: appliesTo, metric_ids: metricIds, status: 'PENDING_PAYMENT', source: 'API', invoice_id: null, trigger_key: null,
      created_at: now, updated_at: now, voided_at: null,
    };
  }

  async function createGrant(tenantId: string, customerIdOrAlias: string, input: CreateGrantInput): Promise<GrantWithRemaining> {
    const grantId = await withTx(pool, async (tx) => {
      const customer = await customerOf(tx, tenantId, customerIdOrAlias);
      const clock = await clockOf(tx, tenantId, customer);
      const row = await grantRow(tx, tenantId, customer, input, clock.now());
      if (row.grant_type === 'PAID') await lockForPurchase(tx, tenantId, clock, customer.id);
      else await lockLedger(tx, tenantId, customer.id);
      await writeGrant(tx, tenantId, clock, row);
      return row.id;
    });
    return (await repo.findGrant(pool, tenantId, grantId))!;
  }

  async function grantOf(db: Queryable, tenantId: string, customerIdOrAlias: string, grantId: string, lock = false): Promise<GrantWithRemaining> {
    const customer = await customerOf(db, tenantId, customerIdOrAlias);
    const grant = await repo.findGrant(db, tenantId, grantId, lock);
    if (!grant || grant.customer_id !== customer.id) throw notFound('credit grant');
    return grant;
  }

  async function getGrant(tenantId: string, customerIdOrAlias: string, grantId: string): Promise<GrantWithRemaining> {
    return grantOf(pool, tenantId, customerIdOrAlias, grantId);
  }

  async function listGrants(tenantId: string, customerIdOrAlias: string, query: { status?: GrantStatus; page?: number; per_page?: number }): Promise<Page<GrantWithRemaining>> {
    const page = pageRequest(query.page, query.per_page);
    const customer = await customerOf(pool, tenantId, customerIdOrAlias);
    const { rows, total } = await repo.listGrants(pool, tenantId, customer.id, query.status, page);
    return { data: rows, pagination_meta: paginationMeta(page, total) };
  }

  /** VOID: what is left of the grant leaves the balance; a grant waiting for payment is dropped (its invoice stays; void it too). */
  async function voidGrant(tenantId: string, customerIdOrAlias: string, grantId: string): Promise<GrantWithRemaining> {
    await withTx(pool, async (tx) => {
      const customer = await customerOf(tx, tenantId, customerIdOrAlias);
      await lockLedger(tx, tenantId, customer.id);
      const grant = await grantOf(tx, tenantId, customer.id, grantId, true);
      if (grant.status === 'VOID') throw conflict(`credit grant ${grant.id} is already VOID`);
      await voidGrantInTx(tx, tenantId, await clockOf(tx, tenantId, customer), grant);
    });
    return (await repo.findGrant(pool, tenantId, grantId))!;
  }

  /** Records expiries due now, so the ledger shows them (a balance read would count them anyway). */
  async function recordExpiries(tenantId: string, customer: CustomerRow): Promise<void> {
    const now = (await clockOf(pool, tenantId, customer)).now();
    await withTx(pool, async (tx) => {
      await lockLedger(tx, tenantId, customer.id);
      await expireDue(tx, tenantId, customer.id, now);
    });
  }

  async function listEntries(
    tenantId: string, customerIdOrAlias: string, query: { grant_id?: string; type?: EntryType; page?: number; per_page?: number },
  ): Promise<Page<EntryRow>> {
    const page = pageRequest(query.page, query.per_page);
    const customer = await customerOf(pool, tenantId, customerIdOrAlias);
    await recordExpiries(tenantId, customer);
    const { rows, total } = await repo.listEntries(pool, tenantId, customer.id, { grantId: query.grant_id, entryType: query.type }, page);
    return { data: rows, pagination_meta: paginationMeta(page, total) };
  }

  const projectedCreditBalance: ProjectedCreditBalance = async (db, tenantId, customerId, at) => {
    const customer = await findCustomer(db, tenantId, customerId);
    if (!customer) return undefined;
    const [{ balance_minor: ledger }, grants, accrued] = await Promise.all([
      repo.ledgerBalance(db, tenantId, customer.id, at),
      repo.activeGrants(db, tenantId, customer.id),
      deps.accruedUsage(db, tenantId, customer.id, customer.currency),
    ]);
    // expiries due by `at` that no writer has recorded yet still leave the balance
    const unrecorded = dueExpiries(grants.map(consumable), at).reduce((sum, e) => sum + e.amountMinor, 0n);
    const balance = ledger + unrecorded;
    return { currency: customer.currency, balance, projected: balance - accrued, accrued };
  };

  async function balance(tenantId: string, customerIdOrAlias: string): Promise<CreditBalance & { customerId: string; pendingMinor: bigint; at: Date }> {
    const customer = await customerOf(pool, tenantId, customerIdOrAlias);
    await recordExpiries(tenantId, customer);
    const at = (await clockOf(pool, tenantId, customer)).now();
    const result = (await projectedCreditBalance(pool, tenantId, customer.id, at))!;
    return { ...result, customerId: customer.id, pendingMinor: await repo.pendingAmount(pool, tenantId, customer.id), at };
  }

  async function getTopUpSettings(tenantId: string, customerIdOrAlias: string): Promise<TopUpSettingsRow & { currency: string }> {
    const customer = await customerOf(pool, tenantId, customerIdOrAlias);
    const row = await repo.findTopUpSettings(pool, tenantId, customer.id);
    if (!row) throw notFound('automatic top-up settings');
    return { ...row, currency: customer.currency };
  }

  /** Sets the automatic top-up and checks it at once (a balance already below the threshold buys one now). */
  async function putTopUpSettings(tenantId: string, customerIdOrAlias: string, input: TopUpSettingsInput): Promise<TopUpSettingsRow & { currency: string }> {
    const customer = await customerOf(pool, tenantId, customerIdOrAlias);
    const row: TopUpSettingsRow = {
      customer_id: customer.id,
      enabled: input.enabled,
      threshold_minor: money(input.threshold, customer.currency, 'threshold'),
      amount_minor: money(input.amount, customer.currency, 'amount'),
      priority: input.priority ?? DEFAULT_PRIORITY,
      expires_after_days: input.expires_after_days ?? null,
      updated_at: (await clockOf(pool, tenantId, customer)).now(),
    };
    if (row.threshold_minor < 0n) throw badRequest(`threshold must be zero or more, such as "10.00", got '${input.threshold}'`);
    if (row.amount_minor <= 0n) throw badRequest(`amount must be above zero, such as "50.00", got '${input.amount}'`);
    await withTx(pool, async (tx) => {
      await lockLedger(tx, tenantId, customer.id);
      await repo.upsertTopUpSettings(tx, tenantId, row);
    });
    await runAutoTopUp(tenantId, customer.id);
    return { ...row, currency: customer.currency };
  }

  /** One automatic top-up check (the job; also after the settings change). */
  async function runAutoTopUp(tenantId: string, customerId: string): Promise<GrantRow | undefined> {
    const customer = await findCustomer(pool, tenantId, customerId);
    if (!customer) return undefined;
    const clock = await clockOf(pool, tenantId, customer);
    return withTx(pool, (tx) => checkAutoTopUp(tx, tenantId, clock, customerId));
  }

  return { createGrant, getGrant, listGrants, voidGrant, listEntries, balance, projectedCreditBalance, getTopUpSettings, putTopUpSettings, runAutoTopUp };
}

export type CreditsService = ReturnType<typeof createCreditsService>;
