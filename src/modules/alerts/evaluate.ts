// One evaluation of some alerts of a tenant: measure, then apply each threshold's transition as a
// conditional UPDATE with its history row and its outbox event (alert.triggered / alert.resolved),
// all in one transaction.
import type { Pool } from '../../db/pool.js';
import { writeOutboxEvent } from '../../db/outbox.js';
import { scoped } from '../../db/tenant-scope.js';
import { withTx, type Tx } from '../../db/tx.js';
import type { Clock } from '../../kernel/clock.js';
import { groupBy } from '../../kernel/collections.js';
import type { Estimates } from './estimate.js';
import type { Measurer } from './measure.js';
import { activeAlertsByIds, insertHistory, markResolved, markTriggered, statesOf, type AlertRow } from './repository.js';
import { transitionsOf, type Measured } from './transitions.js';

/** Why an evaluation ran, kept in the history: events committed, a period ended, the alert was created or changed. */
export type EvaluationReason = 'USAGE_COMMITTED' | 'PERIOD_ENDED' | 'ALERT_CHANGED' | 'REQUESTED';

const isoOrNull = (at: Date | null) => (at ? at.toISOString() : null);

function eventData(alert: AlertRow, threshold: string, measured: Measured | null, period: { start: Date | null; end: Date | null }, reason: EvaluationReason, at: Date) {
  return {
    alert_id: alert.id,
    alert_name: alert.name,
    kind: alert.kind,
    customer_id: alert.customer_id,
    subscription_id: alert.subscription_id,
    metric_id: alert.metric_id,
    threshold,
    value: measured?.value ?? null,
    period_start: isoOrNull(period.start),
    period_end: isoOrNull(period.end),
    reason,
    occurred_at: at.toISOString(),
  };
}

/**
 * Evaluates these alerts (archived or unknown ids are skipped). Two evaluations of one alert take
 * turns: each locks the rows of the alerts it evaluates, and measures after it holds the locks:
 * its reading is never older than one an earlier evaluation of the alert acted on, so a slow
 * evaluation cannot resolve what a newer one triggered. Evaluations of different alerts (a fast
 * round beside a round of a thousand) do not wait for each other. The UPDATEs are conditional
 * besides (NOT triggered -> triggered), so even two evaluations acting on the same reading write
 * one transition. `estimates` (the fast lane's) are told what was measured. Returns how many
 * transitions it wrote.
 */
export async function evaluateAlerts(deps: { pool: Pool; clock: Clock; measurer: Measurer; estimates?: Estimates }, tenantId: string, alertIds: readonly string[], reason: EvaluationReason): Promise<number> {
  const { pool, estimates } = deps;
  if (alertIds.length === 0) return 0;
  // before any reading: events told from now on count against this evaluation's measurement
  const started = estimates?.starts(alertIds);
  const measuredIds = new Set<string>();
  try {
    return await withTx(pool, (tx) => evaluateLocked(tx, { ...deps, tenantId, alertIds, reason }, (alerts, values) => {
      if (started === undefined) return;
      for (const alert of alerts) {
        const measured = values.get(alert.id);
        if (alert.kind !== 'USAGE_UNITS' || !measured) continue;
        estimates!.measured(started, alert.id, measured.value, alert.thresholds);
        measuredIds.add(alert.id);
      }
    }));
  } finally {
    if (started !== undefined) for (const id of alertIds) if (!measuredIds.has(id)) estimates!.failed(started, id);
  }
}

async function evaluateLocked(
  tx: Tx,
  input: { clock: Clock; measurer: Measurer; tenantId: string; alertIds: readonly string[]; reason: EvaluationReason },
  observe: (alerts: readonly AlertRow[], values: ReadonlyMap<string, Measured>) => void,
): Promise<number> {
  const { clock, measurer, tenantId, alertIds, reason } = input;
  const db = scoped(tx, tenantId);
  const alerts = await activeAlertsByIds(tx, tenantId, alertIds, { lock: true });
  if (alerts.length === 0) return 0;
  // measured on other connections, in snapshots taken after the locks were granted
  const values = await measurer.measure(tenantId, alerts);
  observe(alerts, values);
  const states = await statesOf(tx, tenantId, alerts.map((a) => a.id));
  const now = clock.now();
  let written = 0;
  const statesByAlert = groupBy(states, (state) => state.alert_id);
  for (const alert of alerts) {
    const measured = values.get(alert.id);
    if (!measured) continue;
    const own = statesByAlert.get(alert.id) ?? [];
    const transitions = transitionsOf(alert.kind, own.map((s) => ({ threshold: s.threshold, triggered: s.triggered, periodStart: s.period_start })), measured);
    for (const t of transitions) {
      if (t.kind === 'RESOLVE') {
        const state = own.find((s) => s.threshold === t.threshold)!;
        if (!(await markResolved(tx, tenantId, { alertId: alert.id, threshold: t.threshold, triggeredIn: t.triggeredIn, value: measured.value, at: now }))) continue;
        const period = { start: state.period_start, end: state.period_end };
        const eventId = await writeOutboxEvent(db, clock, { type: 'alert.resolved', objectId: alert.id, data: eventData(alert, t.threshold, measured, period, reason, now) });
        await insertHistory(tx, tenantId, { alert_id: alert.id, threshold: t.threshold, transition: 'RESOLVED', value: measured.value, period_start: period.start, period_end: period.end, reason, event_id: eventId, occurred_at: now });
      } else {
        const triggered = { alertId: alert.id, threshold: t.threshold, periodStart: measured.periodStart, periodEnd: measured.periodEnd, value: measured.value!, at: now };
        if (!(await markTriggered(tx, tenantId, triggered))) continue;
        const period = { start: measured.periodStart, end: measured.periodEnd };
        const eventId = await writeOutboxEvent(db, clock, { type: 'alert.triggered', objectId: alert.id, data: eventData(alert, t.threshold, measured, period, reason, now) });
        await insertHistory(tx, tenantId, { alert_id: alert.id, threshold: t.threshold, transition: 'TRIGGERED', value: measured.value, period_start: period.start, period_end: period.end, reason, event_id: eventId, occurred_at: now });
      }
      written += 1;
    }
  }
  return written;
}
