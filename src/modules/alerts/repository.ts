// SQL of the alerts module's tables: alerts, alert_threshold_states, alert_history.
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import type { AlertKind } from './transitions.js';

export type AlertStatus = 'ACTIVE' | 'ARCHIVED';

export interface AlertRow {
  tenant_id: string;
  id: string;
  name: string;
  kind: AlertKind;
  customer_id: string;
  subscription_id: string | null;
  metric_id: string | null;
  metric_code: string | null;
  thresholds: string[];
  status: AlertStatus;
  created_at: Date;
  updated_at: Date;
}

export interface StateRow {
  alert_id: string;
  threshold: string;
  triggered: boolean;
  period_start: Date | null;
  period_end: Date | null;
  last_value: string | null;
  changed_at: Date | null;
}

export interface HistoryRow {
  id: bigint;
  alert_id: string;
  threshold: string;
  transition: 'TRIGGERED' | 'RESOLVED';
  value: string | null;
  period_start: Date | null;
  period_end: Date | null;
  reason: string;
  event_id: string;
  occurred_at: Date;
}

const ALERT_COLUMNS = `tenant_id, id, name, kind, customer_id, subscription_id, metric_id, metric_code, thresholds::text[] AS thresholds, status, created_at, updated_at`;
const STATE_COLUMNS = `alert_id, threshold::text AS threshold, triggered, period_start, period_end, last_value::text AS last_value, changed_at`;

export async function insertAlert(db: Queryable, row: AlertRow): Promise<void> {
  await scoped(db, row.tenant_id).query(
    `INSERT INTO alerts (tenant_id, id, name, kind, customer_id, subscription_id, metric_id, metric_code, thresholds, status, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::numeric[], $10, $11, $12)`,
    [row.id, row.name, row.kind, row.customer_id, row.subscription_id, row.metric_id, row.metric_code, row.thresholds, row.status, row.created_at, row.updated_at],
  );
}

/** One untriggered state row per threshold not stored yet; the rows of thresholds no longer listed are removed. */
export async function syncThresholdStates(db: Queryable, tenantId: string, alertId: string, thresholds: readonly string[]): Promise<void> {
  const s = scoped(db, tenantId);
  await s.query(`DELETE FROM alert_threshold_states WHERE tenant_id = $1 AND alert_id = $2 AND NOT (threshold = ANY($3::numeric[]))`, [alertId, thresholds]);
  await s.query(
    `INSERT INTO alert_threshold_states (tenant_id, alert_id, threshold) SELECT $1, $2, t FROM unnest($3::numeric[]) AS t ON CONFLICT (tenant_id, alert_id, threshold) DO NOTHING`,
    [alertId, thresholds],
  );
}

export async function updateAlert(db: Queryable, tenantId: string, id: string, changes: { name?: string; thresholds?: readonly string[]; status?: AlertStatus; updatedAt: Date }): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE alerts SET name = coalesce($3, name), thresholds = coalesce($4::numeric[], thresholds), status = coalesce($5, status), updated_at = $6
     WHERE tenant_id = $1 AND id = $2`,
    [id, changes.name ?? null, changes.thresholds ?? null, changes.status ?? null, changes.updatedAt],
  );
}

export async function findAlert(db: Queryable, tenantId: string, id: string, options: { lock?: boolean } = {}): Promise<AlertRow | undefined> {
  return scoped(db, tenantId).one<AlertRow>(`SELECT ${ALERT_COLUMNS} FROM alerts WHERE tenant_id = $1 AND id = $2${options.lock ? ' FOR UPDATE' : ''}`, [id]);
}

/**
 * The active alerts among `ids`, their rows locked (`lock`) until the caller's transaction ends:
 * in id order, so two evaluations locking overlapping sets take the locks in the same order and
 * cannot deadlock. Row locks, not advisory ones: a round of thousands of alerts uses no slot of
 * the server's shared lock table.
 */
export async function activeAlertsByIds(db: Queryable, tenantId: string, ids: readonly string[], options: { lock?: boolean } = {}): Promise<AlertRow[]> {
  return scoped(db, tenantId).query<AlertRow>(
    `SELECT ${ALERT_COLUMNS} FROM alerts WHERE tenant_id = $1 AND id = ANY($2::text[]) AND status = 'ACTIVE' ORDER BY id${options.lock ? ' FOR NO KEY UPDATE' : ''}`,
    [ids],
  );
}

/** What the in-memory index of active alerts holds (trigger.ts). */
export async function activeAlertKeys(db: Queryable, tenantId: string): Promise<Pick<AlertRow, 'id' | 'kind' | 'customer_id' | 'metric_id' | 'metric_code'>[]> {
  return scoped(db, tenantId).query(`SELECT id, kind, customer_id, metric_id, metric_code FROM alerts WHERE tenant_id = $1 AND status = 'ACTIVE'`);
}

export async function listAlerts(db: Queryable, tenantId: string, filter: { customerId?: string; status?: AlertStatus }, page: PageRequest): Promise<{ rows: AlertRow[]; total: number }> {
  return scoped(db, tenantId).page<AlertRow>(
    { columns: ALERT_COLUMNS, from: 'alerts', where: `tenant_id = $1 AND ($2::text IS NULL OR customer_id = $2) AND ($3::text IS NULL OR status = $3)`, orderBy: 'id DESC' },
    [filter.customerId ?? null, filter.status ?? null],
    page,
  );
}

export async function statesOf(db: Queryable, tenantId: string, alertIds: readonly string[]): Promise<StateRow[]> {
  return scoped(db, tenantId).query<StateRow>(`SELECT ${STATE_COLUMNS} FROM alert_threshold_states s WHERE tenant_id = $1 AND alert_id = ANY($2::text[]) ORDER BY s.alert_id, s.threshold`, [alertIds]);
}

/** untriggered -> triggered; false when another evaluation got there first (nothing written). */
export async function markTriggered(db: Queryable, tenantId: string, t: { alertId: string; threshold: string; periodStart: Date | null; periodEnd: Date | null; value: string; at: Date }): Promise<boolean> {
  const rows = await scoped(db, tenantId).query(
    `UPDATE alert_threshold_states SET triggered = true, period_start = $4, period_end = $5, last_value = $6::numeric, changed_at = $7
     WHERE tenant_id = $1 AND alert_id = $2 AND threshold = $3::numeric AND NOT triggered RETURNING 1`,
    [t.alertId, t.threshold, t.periodStart, t.periodEnd, t.value, t.at],
  );
  return rows.length === 1;
}

/** triggered (in that period) -> resolved; false when another evaluation got there first (nothing written). */
export async function markResolved(db: Queryable, tenantId: string, t: { alertId: string; threshold: string; triggeredIn: Date | null; value: string | null; at: Date }): Promise<boolean> {
  const rows = await scoped(db, tenantId).query(
    `UPDATE alert_threshold_states SET triggered = false, last_value = $5::numeric, changed_at = $6
     WHERE tenant_id = $1 AND alert_id = $2 AND threshold = $3::numeric AND triggered AND period_start IS NOT DISTINCT FROM $4::timestamptz RETURNING 1`,
    [t.alertId, t.threshold, t.triggeredIn, t.value, t.at],
  );
  return rows.length === 1;
}

export async function insertHistory(db: Queryable, tenantId: string, row: Omit<HistoryRow, 'id'>): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO alert_history (tenant_id, alert_id, threshold, transition, value, period_start, period_end, reason, event_id, occurred_at)
     VALUES ($1, $2, $3::numeric, $4, $5::numeric, $6, $7, $8, $9, $10)`,
    [row.alert_id, row.threshold, row.transition, row.value, row.period_start, row.period_end, row.reason, row.event_id, row.occurred_at],
  );
}

export async function historyOf(db: Queryable, tenantId: string, alertId: string, page: PageRequest): Promise<{ rows: HistoryRow[]; total: number }> {
  return scoped(db, tenantId).page<HistoryRow>(
    {
      columns: `id, alert_id, threshold::text AS threshold, transition, value::text AS value, period_start, period_end, reason, event_id, occurred_at`,
      from: 'alert_history',
      where: 'tenant_id = $1 AND alert_id = $2',
      orderBy: 'id DESC',
    },
    [alertId],
    page,
  );
}

/** Triggered thresholds whose period has ended by `now`, by tenant: what the period-boundary job resolves. */
export async function alertsWithEndedPeriods(db: Queryable, now: Date, limit: number): Promise<{ tenant_id: string; alert_id: string }[]> {
  // cross-tenant on purpose: the job serves every tenant (as the outbox relay does)
  const result = await db.query<{ tenant_id: string; alert_id: string }>(
    `SELECT DISTINCT tenant_id, alert_id FROM alert_threshold_states WHERE triggered AND period_end <= $1 LIMIT $2`,
    [now, limit],
  );
  return result.rows;
}
