import { describe, expect, it } from 'vitest';
import { createPool } from '../../src/db/pool.js';
import { createBillingRun } from '../../src/modules/invoices/billing/run.js';
import { countOpenCreditNotes } from '../../src/modules/credit-notes/index.js';
import { createInvoiceLifecycle } from '../../src/modules/invoices/index.js';
import { useHarness } from '../harness/app.js';
import { backdatedSubscription, sendCalls } from './billing-support.js';

const harness = useHarness();

describe('billing run under concurrency and crashes', () => {
  it('two processes (two pools) running at once, after a partial run, bill each period exactly once', async () => {
    const h = harness();
    const subs = [];
    for (let i = 0; i < 3; i += 1) subs.push(await backdatedSubscription(h, { name: `Customer ${i}` }));
    await sendCalls(h, subs[0]!.customerId, '2026-02-03', 5, 'c0');

    const poolB = createPool(h.db.url, 5);
    try {
      const runA = createBillingRun({ pool: h.db.pool, clock: h.clock });
      const runB = createBillingRun({ pool: poolB, clock: h.clock });
      // "crash" after the first invoice: a run that stopped half-way leaves one period billed
      const { loadSubscriptionRecord } = await import('../../src/modules/subscriptions/index.js');
      const snapshot = (await loadSubscriptionRecord(h.db.pool, h.tenant.id, subs[0]!.subscriptionId))!;
      expect(await runA.billSubscription(h.tenant.id, snapshot, '2026-01-15')).toBe(1);

      const [a, b] = await Promise.all([runA.runAll(), runB.runAll()]);
      expect(a.invoicesCreated + b.invoicesCreated).toBe(8); // 3 subscriptions x 3 periods, minus the one already there
      const again = await Promise.all([runA.runAll(), runB.runAll()]);
      expect(again[0].invoicesCreated + again[1].invoicesCreated).toBe(0);

      // finalizers in both processes at once: gapless numbers, no number used twice
      await Promise.all([
        createInvoiceLifecycle({ pool: h.db.pool, clock: h.clock, openCreditNotes: countOpenCreditNotes, refresh: runA.refreshForFinalization }).finalizeDueDrafts(),
        createInvoiceLifecycle({ pool: poolB, clock: h.clock, openCreditNotes: countOpenCreditNotes, refresh: runB.refreshForFinalization }).finalizeDueDrafts(),
      ]);
    } finally {
      await poolB.end();
    }
    const perPeriod = await h.db.pool.query(
      `SELECT subscription_id, period_start::text, count(*)::int AS n FROM invoices WHERE tenant_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`,
      [h.tenant.id],
    );
    expect(perPeriod.rows).toHaveLength(9);
    expect(perPeriod.rows.every((row) => row.n === 1)).toBe(true);
    const numbers = await h.db.pool.query(`SELECT invoice_number, status FROM invoices WHERE tenant_id = $1 ORDER BY invoice_number`, [h.tenant.id]);
    expect(numbers.rows.map((row) => row.invoice_number)).toEqual(Array.from({ length: 9 }, (_, i) => `INV-${String(i + 1).padStart(4, '0')}`));
    expect(numbers.rows.every((row) => row.status === 'FINALIZED')).toBe(true);
  });
});
