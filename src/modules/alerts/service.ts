// Alert definitions: create, read, change thresholds, archive; and their state and history.
import type { Pool } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import type { Clock } from '../../kernel/clock.js';
import { badRequest, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { parseDecimal } from '../../kernel/money.js';
import { paginationMeta, pageRequest } from '../../kernel/paging.js';
import { findCustomer } from '../customers/index.js';
import { loadMetricDefinition } from '../metrics/index.js';
import { loadSubscriptionRecords } from '../subscriptions/index.js';
import * as repo from './repository.js';
import type { AlertRow, AlertStatus, HistoryRow, StateRow } from './repository.js';
import type { AlertTrigger } from './trigger.js';
import type { AlertKind } from './transitions.js';

/** Most thresholds one alert may have. */
export const MAX_THRESHOLDS = 20;

export interface CreateAlertInput {
  name?: string;
  kind: AlertKind;
  customer_id: string;
  subscription_id?: string | null;
  metric_id?: string | null;
  thresholds: string[];
}

export interface AlertView {
  alert: AlertRow;
  states: StateRow[];
}

/** Distinct thresholds as normalised decimal strings, ascending; usage and spend ones >= 0. */
function parseThresholds(kind: AlertKind, raw: readonly string[]): string[] {
  if (raw.length === 0 || raw.length > MAX_THRESHOLDS) throw badRequest(`thresholds must list 1 to ${MAX_THRESHOLDS} decimal strings, e.g. ["1000", "5000"]`);
  const values = raw.map((text, i) => {
    let value;
    try {
      value = parseDecimal(text);
    } catch {
      throw badRequest(`thresholds[${i}] must be a decimal string such as "1000"; got "${text}"`);
    }
    if (kind !== 'CREDIT_BALANCE' && value.isNegative()) throw badRequest(`thresholds[${i}] must be >= 0 for a ${kind} alert; got "${text}"`);
    return value;
  });
  const sorted = values.sort((a, b) => a.comparedTo(b)).map((v) => v.toFixed());
  const distinct = [...new Set(sorted)];
  if (distinct.length !== sorted.length) throw badRequest('thresholds must be distinct; got the same value twice');
  return distinct;
}

export function createAlertsService(deps: { pool: Pool; clock: Clock; trigger: AlertTrigger; forget: (alertId: string) => void }) {
  const { pool, clock, trigger } = deps;

  async function view(tenantId: string, alert: AlertRow): Promise<AlertView> {
    return { alert, states: await repo.statesOf(pool, tenantId, [alert.id]) };
  }

  async function create(tenantId: string, input: CreateAlertInput): Promise<AlertView> {
    const thresholds = parseThresholds(input.kind, input.thresholds);
    const alert = await withTx(pool, async (tx) => {
      const customer = await findCustomer(tx, tenantId, input.customer_id);
      if (!customer) throw badRequest(`customer_id '${input.customer_id}' is not a customer of this tenant (an id such as cus_... or an alias)`);
      let subscriptionId: string | null = null;
      if (input.subscription_id) {
        if (input.kind === 'CREDIT_BALANCE') throw badRequest('subscription_id must be left out for a CREDIT_BALANCE alert: credits belong to the customer');
        const [record] = await loadSubscriptionRecords(tx, tenantId, { ids: [input.subscription_id] });
        if (!record || record.subscription.customer_id !== customer.id) throw badRequest(`subscription_id '${input.subscription_id}' is not a subscription of customer '${input.customer_id}'`);
        subscriptionId = record.subscription.id;
      }
      let metric: { id: string; code: string } | null = null;
      if (input.kind === 'USAGE_UNITS') {
        if (!input.metric_id) throw badRequest('metric_id is required for a USAGE_UNITS alert, e.g. "bm_01KKRNW4G0H1V3T9GFT3902B3Z"');
        const def = await loadMetricDefinition(tx, tenantId, input.metric_id);
        if (!def || def.archived) throw badRequest(`metric_id '${input.metric_id}' is not an active billable metric of this tenant`);
        metric = { id: def.id, code: def.code };
      } else if (input.metric_id) {
        throw badRequest(`metric_id must be left out for a ${input.kind} alert (only USAGE_UNITS alerts watch one metric)`);
      }
      const now = clock.now();
      const row: AlertRow = {
        tenant_id: tenantId, id: newId('alert', now.getTime()), name: input.name ?? `${input.kind} alert`, kind: input.kind, customer_id: customer.id, subscription_id: subscriptionId,
        metric_id: metric?.id ?? null, metric_code: metric?.code ?? null, thresholds, status: 'ACTIVE', created_at: now, updated_at: now,
      };
      await repo.insertAlert(tx, row);
      await repo.syncThresholdStates(tx, tenantId, row.id, thresholds);
      return row;
    });
    trigger.invalidate(tenantId);
    // a value already over a threshold fires at once, not at the next event
    trigger.evaluateSoon(tenantId, [alert.id]);
    return view(tenantId, alert);
  }

  async function get(tenantId: string, id: string): Promise<AlertView> {
    const alert = await repo.findAlert(pool, tenantId, id);
    if (!alert) throw notFound('alert');
    return view(tenantId, alert);
  }

  async function list(tenantId: string, query: { customer_id?: string; status?: AlertStatus; page?: number; per_page?: number }) {
    const page = pageRequest(query.page, query.per_page);
    let customerId: string | undefined;
    if (query.customer_id) {
      const customer = await findCustomer(pool, tenantId, query.customer_id);
      if (!customer) return { data: [], pagination_meta: paginationMeta(page, 0) };
      customerId = customer.id;
    }
    const { rows, total } = await repo.listAlerts(pool, tenantId, { customerId, status: query.status }, page);
    const states = await repo.statesOf(pool, tenantId, rows.map((r) => r.id));
    return { data: rows.map((alert) => ({ alert, states: states.filter((s) => s.alert_id === alert.id) })), pagination_meta: paginationMeta(page, total) };
  }

  /**
   * Changes the name or the thresholds. A kept threshold keeps its state; a new one starts
   * untriggered and is evaluated at once; a removed one is dropped (its history stays).
   */
  async function update(tenantId: string, id: string, input: { name?: string; thresholds?: string[] }): Promise<AlertView> {
    const alert = await withTx(pool, async (tx) => {
      const current = await repo.findAlert(tx, tenantId, id, { lock: true });
      if (!current) throw notFound('alert');
      if (current.status === 'ARCHIVED') throw badRequest(`alert '${id}' is archived and can no longer change; create a new one`);
      const thresholds = input.thresholds ? parseThresholds(current.kind, input.thresholds) : undefined;
      await repo.updateAlert(tx, tenantId, id, { name: input.name, thresholds, updatedAt: clock.now() });
      if (thresholds) await repo.syncThresholdStates(tx, tenantId, id, thresholds);
      return (await repo.findAlert(tx, tenantId, id))!;
    });
    trigger.evaluateSoon(tenantId, [id]);
    return view(tenantId, alert);
  }

  /** Archives: the alert stops being evaluated and sends nothing more; its state and history stay readable. */
  async function archive(tenantId: string, id: string): Promise<void> {
    await withTx(pool, async (tx) => {
      const current = await repo.findAlert(tx, tenantId, id, { lock: true });
      if (!current) throw notFound('alert');
      if (current.status !== 'ARCHIVED') await repo.updateAlert(tx, tenantId, id, { status: 'ARCHIVED', updatedAt: clock.now() });
    });
    trigger.invalidate(tenantId);
    deps.forget(id);
  }

  async function history(tenantId: string, id: string, query: { page?: number; per_page?: number }): Promise<{ data: HistoryRow[]; pagination_meta: ReturnType<typeof paginationMeta> }> {
    const page = pageRequest(query.page, query.per_page);
    if (!(await repo.findAlert(pool, tenantId, id))) throw notFound('alert');
    const { rows, total } = await repo.historyOf(pool, tenantId, id, page);
    return { data: rows, pagination_meta: paginationMeta(page, total) };
  }

  return { create, get, list, update, archive, history };
}

export type AlertsService = ReturnType<typeof createAlertsService>;
