// Periods of usage an invoice has billed (usage_billed_periods), so that no accepted event is
// left unbilled (docs/usage.md, "Late usage"). Invoicing records a period, with the snapshot its
// figures were read in, in the transaction that finalizes the invoice; the rollup fold flags a
// period when it folds an event of it that the snapshot may not show; invoicing then bills the
// difference on the next invoice and records the period again.
//
// The fold and the recording exclude each other (one advisory lock per tenant: shared for
// recorders, exclusive for the fold). Without it an event committed after the billed snapshot was
// taken could be folded by a fold that does not see the period yet (its finalization not yet
// committed), and never be flagged. With it, a fold either committed before the recorder read
// its usage (so the events it folded were visible to that read), or starts after the recording
// committed (so it sees the period and checks the events against its snapshot).
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';

/** Namespace of the billing lock (the partition, rollup and migration locks use others). */
const BILLING_LOCK_NAMESPACE = 727_302;

/**
 * Takes the tenant's billing lock, shared, for the caller's transaction. Invoicing takes it before
 * it reads the usage it will record as billed; several finalizations hold it together.
 */
export async function lockUsageForBilling(tx: Queryable, tenantId: string): Promise<void> {
  await scoped(tx, tenantId).query(`SELECT pg_advisory_xact_lock_shared($2, hashtext($1)), $1::text AS tenant_id`, [BILLING_LOCK_NAMESPACE]);
}

/** The same lock, exclusive: the rollup fold, which flags late events against billed periods. */
export async function lockUsageForFold(tx: Queryable, tenantId: string): Promise<void> {
  await scoped(tx, tenantId).query(`SELECT pg_advisory_xact_lock($2, hashtext($1)), $1::text AS tenant_id`, [BILLING_LOCK_NAMESPACE]);
}

/** One period of one metric's usage of one customer, as an invoice billed it. */
export interface BilledPeriod {
  /** The biller's key of the period: who billed it (a subscription) and which window (component and dates). */
  ownerId: string;
  windowKey: string;
  /** The customer id events are stored under. */
  customerId: string;
  metricId: string;
  code: string;
  /** Half-open [startsAt, endsAt). */
  startsAt: Date;
  endsAt: Date;
  /** The snapshot the billed figures were read in (`pg_snapshot` text). */
  snapshot: string;
  /** What the biller priced (opaque here), given back with a late period. */
  billed: unknown;
}

/**
 * Records periods as billed, in the caller's transaction, which holds `lockUsageForBilling`: new
 * ones, and late ones billed again (their flag cleared, their snapshot and figures replaced).
 */
export async function recordBilledPeriods(tx: Queryable, tenantId: string, periods: readonly BilledPeriod[], billedAt: Date): Promise<void> {
  if (periods.length === 0) return;
  const rows = periods.map((p) => ({
    owner_id: p.ownerId, window_key: p.windowKey, customer_id: p.customerId, code: p.code, metric_id: p.metricId,
    starts_at: p.startsAt.toISOString(), ends_at: p.endsAt.toISOString(), billed_snapshot: p.snapshot, billed: p.billed,
  }));
  await scoped(tx, tenantId).query(
    `INSERT INTO usage_billed_periods AS b (tenant_id, owner_id, window_key, customer_id, code, metric_id, starts_at, ends_at, billed_snapshot, billed, late_since, billed_at)
     SELECT $1, r.owner_id, r.window_key, r.customer_id, r.code, r.metric_id, r.starts_at, r.ends_at, r.billed_snapshot, r.billed, NULL, $3
     FROM jsonb_to_recordset($2::jsonb) AS r(owner_id text, window_key text, customer_id text, code text, metric_id text, starts_at timestamptz,
       ends_at timestamptz, billed_snapshot pg_snapshot, billed jsonb)
     ORDER BY r.owner_id, r.window_key
     ON CONFLICT (tenant_id, owner_id, window_key) DO UPDATE SET customer_id = EXCLUDED.customer_id, code = EXCLUDED.code, metric_id = EXCLUDED.metric_id,
       starts_at = EXCLUDED.starts_at, ends_at = EXCLUDED.ends_at, billed_snapshot = EXCLUDED.billed_snapshot, billed = EXCLUDED.billed,
       late_since = NULL, billed_at = EXCLUDED.billed_at`,
    [JSON.stringify(rows), billedAt],
  );
}

/** A billed period an event arrived for after it was billed. */
export interface LatePeriod {
  ownerId: string;
  windowKey: string;
  billed: unknown;
  /** When the fold first saw a late event of it. */
  lateSince: Date;
}

/**
 * The late periods of some owners (subscriptions). With `lock`, row-locked for the caller's
 * transaction: two finalizations that would both bill a period late queue, and the second finds
 * it billed (its flag cleared).
 */
export async function latePeriodsOf(db: Queryable, tenantId: string, ownerIds: readonly string[], options: { lock: boolean }): Promise<LatePeriod[]> {
  if (ownerIds.length === 0) return [];
  const rows = await scoped(db, tenantId).query<{ owner_id: string; window_key: string; billed: unknown; late_since: Date }>(
    `SELECT owner_id, window_key, billed, late_since FROM usage_billed_periods
     WHERE tenant_id = $1 AND owner_id = ANY($2::text[]) AND late_since IS NOT NULL
     ORDER BY owner_id, window_key${options.lock ? ' FOR UPDATE' : ''}`,
    [ownerIds],
  );
  return rows.map((row) => ({ ownerId: row.owner_id, windowKey: row.window_key, billed: row.billed, lateSince: row.late_since }));
}
