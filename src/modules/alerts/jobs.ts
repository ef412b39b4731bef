// The period-boundary job: an alert whose period ended resolves even when no event arrives in
// the new period. Evaluation on ingestion resolves it at the first event of the new period; this
// job covers the customers who send none.
import type { Pool, Queryable } from '../../db/pool.js';
import type { Clock } from '../../kernel/clock.js';
import { enqueueJob } from '../../jobs/queue.js';
import type { TaskRegistry } from '../../jobs/runtime.js';
import type { EvaluationReason } from './evaluate.js';
import { alertsWithEndedPeriods } from './repository.js';

export const PERIOD_BOUNDARIES_TASK = 'alerts.period_boundaries';
/** Wall-clock pause between two runs: an ended period resolves within about this much of its end. */
export const PERIOD_BOUNDARIES_INTERVAL_MS = 60_000;
const BATCH = 1_000;

/** Queues the periodic job (idempotent: one pending run per database, by job key). */
export async function schedulePeriodBoundaries(db: Queryable, runAt?: Date): Promise<void> {
  await enqueueJob(db, PERIOD_BOUNDARIES_TASK, {}, { jobKey: PERIOD_BOUNDARIES_TASK, ...(runAt ? { runAt } : {}) });
}

/**
 * Finds triggered thresholds whose period ended by the business clock (one indexed read of the
 * triggered states, whatever the number of alerts) and evaluates their alerts, tenant by tenant:
 * the new period's value is read and the threshold resolves (and triggers again if the new
 * period is already over it).
 */
export async function resolveEndedPeriods(deps: { pool: Pool; clock: Clock; evaluate: (tenantId: string, ids: string[], reason: EvaluationReason) => Promise<number> }): Promise<number> {
  let transitions = 0;
  for (;;) {
    const due = await alertsWithEndedPeriods(deps.pool, deps.clock.now(), BATCH);
    if (due.length === 0) return transitions;
    const byTenant = new Map<string, string[]>();
    for (const row of due) byTenant.set(row.tenant_id, [...(byTenant.get(row.tenant_id) ?? []), row.alert_id]);
    let written = 0;
    for (const [tenantId, ids] of byTenant) written += await deps.evaluate(tenantId, ids, 'PERIOD_ENDED');
    transitions += written;
    // rows still due after a round that changed nothing are waiting for their subscription (none serving, a spend port missing): leave them to the next run
    if (written === 0 || due.length < BATCH) return transitions;
  }
}

export function alertTasks(deps: { pool: Pool; clock: Clock; evaluate: (tenantId: string, ids: string[], reason: EvaluationReason) => Promise<number> }): TaskRegistry {
  return {
    [PERIOD_BOUNDARIES_TASK]: async (payload) => {
      try {
        await resolveEndedPeriods(deps);
      } finally {
        if (!payload.once) await schedulePeriodBoundaries(deps.pool, new Date(Date.now() + PERIOD_BOUNDARIES_INTERVAL_MS));
      }
    },
  };
}
