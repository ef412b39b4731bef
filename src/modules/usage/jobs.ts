import type { Pool } from '../../db/pool.js';
import type { Clock } from '../../kernel/clock.js';
import type { TaskRegistry } from '../../jobs/runtime.js';
import type { UsageMetricSource } from './metrics.js';
import { ensurePartitionsAhead, refreshTenantRollups } from './rollups.js';

/**
 * `usage.rollup` folds a tenant's newly written events into the hourly rollups. Ingestion wakes
 * it (at most once a second per tenant); a missed wake-up only makes queries read a longer raw
 * tail, never different figures.
 */
export function usageTasks(deps: { pool: Pool; clock: Clock; metrics: UsageMetricSource }): TaskRegistry {
  return {
    'usage.rollup': async (payload) => {
      const tenantId = payload.tenant_id;
      if (typeof tenantId !== 'string') return;
      await ensurePartitionsAhead(deps.pool, deps.clock);
      await refreshTenantRollups(deps.pool, deps.clock, tenantId, await deps.metrics.all(tenantId));
    },
  };
}
