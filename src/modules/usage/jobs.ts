import type { Pool } from '../../db/pool.js';
import type { Clock } from '../../kernel/clock.js';
import { enqueueJob } from '../../jobs/queue.js';
import type { TaskRegistry } from '../../jobs/runtime.js';
import type { UsageMetricSource } from './metrics.js';
import { ensurePartitionsAhead, refreshTenantRollups } from './rollups.js';

/** How long a fold that had to leave events unfolded waits before it tries again. */
const RETRY_TAIL_AFTER_MS = 1_000;

/**
 * `usage.rollup` folds a tenant's newly written events into the hourly rollups and flags the
 * billed periods late events fall in. Ingestion wakes it (at most once a second per tenant, and
 * once more at the end of that second). Events it must leave above its watermark (a transaction
 * still running anywhere on the server) would wait for the tenant's next ingestion, and their late
 * usage with them: it runs again a second later until none is left. Queries count those events
 * from the raw tail meanwhile, so figures never differ.
 */
export function usageTasks(deps: { pool: Pool; clock: Clock; metrics: UsageMetricSource }): TaskRegistry {
  return {
    'usage.rollup': async (payload) => {
      const tenantId = payload.tenant_id;
      if (typeof tenantId !== 'string') return;
      await ensurePartitionsAhead(deps.pool, deps.clock);
      const tailLeft = await refreshTenantRollups(deps.pool, deps.clock, tenantId, await deps.metrics.all(tenantId));
      // wall-clock on purpose, like ingestion's wake-ups: a retry, not business time
      if (tailLeft) await enqueueJob(deps.pool, 'usage.rollup', { tenant_id: tenantId }, { jobKey: `usage.rollup:${tenantId}`, runAt: new Date(Date.now() + RETRY_TAIL_AFTER_MS) });
    },
  };
}
