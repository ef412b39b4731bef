// The grace-period finalizer keeps two batches in flight (lifecycle.ts, finalizeEntityDrafts):
// the next batch is refreshed while the one before takes its numbers. These tests hold the
// invoicing entity's row from another connection, so the first batch stops just before its
// numbers, and look at what the finalizer does meanwhile and after.
import { describe, expect, it } from 'vitest';
import { createBillingRun } from '../../src/modules/invoices/billing/run.js';
import { countOpenCreditNotes } from '../../src/modules/credit-notes/index.js';
import { createInvoiceLifecycle, type DraftRefresher } from '../../src/modules/invoices/index.js';
import { useHarness, type Harness } from '../harness/app.js';
import { backdatedSubscription, invoicesOf, sendCalls } from './billing-support.js';

const harness = useHarness();

/** Five subscriptions from 2026-01-01: three drafts each (January, February, March), 15 in all; five calls in February for the first. */
async function fifteenDrafts(h: Harness, eventPrefix: string) {
  const subs = [];
  for (let i = 0; i < 5; i += 1) subs.push(await backdatedSubscription(h, { name: `Customer ${i}` }));
  await sendCalls(h, subs[0]!.customerId, '2026-02-03', 5, eventPrefix);
  const run = createBillingRun({ pool: h.db.pool, clock: h.clock });
  expect((await run.runAll()).invoicesCreated).toBe(15);
  return { subs, run };
}

interface Refresh {
  customers: string[];
  drafts: string[];
  /** How many drafts of the refresh before this one were committed as finalized when this one began. */
  previousCommitted: number;
}

/** The finalizer with batches of four, recording each refresh in call order. */
function recordingFinalizer(h: Harness, run: ReturnType<typeof createBillingRun>, batchWaitMs?: number) {
  const refreshes: Refresh[] = [];
  const refresh: DraftRefresher = async (tx, tenantId, drafts) => {
    const previous = refreshes.at(-1)?.drafts ?? [];
    const committed = await h.db.pool.query(`SELECT count(*)::int AS n FROM invoices WHERE tenant_id = $1 AND id = ANY($2) AND status = 'FINALIZED'`, [tenantId, previous]);
    refreshes.push({ customers: drafts.map((draft) => draft.customer_id), drafts: drafts.map((draft) => draft.id), previousCommitted: committed.rows[0].n });
    return run.refreshForFinalization(tx, tenantId, drafts);
  };
  const lifecycle = createInvoiceLifecycle({ pool: h.db.pool, clock: h.clock, openCreditNotes: countOpenCreditNotes, refresh, batchSize: 4, ...(batchWaitMs ? { batchWaitMs } : {}) });
  return { lifecycle, refreshes };
}

/** Holds the tenant's invoicing entity row (FOR UPDATE) in a transaction of its own until `release`, which may rename the entity first. */
async function holdEntityRow(h: Harness) {
  const client = await h.db.pool.connect();
  await client.query('BEGIN');
  await client.query('SELECT id FROM invoicing_entities WHERE tenant_id = $1 FOR UPDATE', [h.tenant.id]);
  return async (renameTo?: string) => {
    if (renameTo) await client.query('UPDATE invoicing_entities SET legal_name = $2 WHERE tenant_id = $1', [h.tenant.id, renameTo]);
    await client.query('COMMIT');
    client.release();
  };
}

type Subscriptions = { subscriptionId: string }[];

async function finalizedCount(h: Harness, subs: Subscriptions): Promise<number> {
  const result = await h.db.pool.query(`SELECT count(*)::int AS n FROM invoices WHERE tenant_id = $1 AND subscription_id = ANY($2) AND status = 'FINALIZED'`, [h.tenant.id, subs.map((s) => s.subscriptionId)]);
  return result.rows[0].n;
}

/** The 15 invoices finalized, numbered without gaps in (invoice date, id) order; the February calls billed once (5 x 0.10). */
async function expectAllNumberedInDateOrder(h: Harness, subs: Subscriptions) {
  const rows = (await h.db.pool.query(
    `SELECT invoice_number, status FROM invoices WHERE tenant_id = $1 AND subscription_id = ANY($2) ORDER BY invoice_date, id`, [h.tenant.id, subs.map((s) => s.subscriptionId)],
  )).rows;
  expect(rows.map((row) => row.status)).toEqual(Array(15).fill('FINALIZED'));
  const first = Number(rows[0].invoice_number.slice('INV-'.length));
  expect(rows.map((row) => row.invoice_number)).toEqual(Array.from({ length: 15 }, (_, i) => `INV-${String(first + i).padStart(4, '0')}`));
  const usage = (await invoicesOf(h, subs[0]!.subscriptionId)).flatMap((invoice) => invoice.line_items).filter((line) => line.name === 'API calls' && line.amount_subtotal !== '0.00');
  expect(usage.map((line) => [line.start_date, line.amount_subtotal])).toEqual([['2026-02-01', '0.50']]);
}

/** Two refreshes in a row were in flight together unless the first had committed: then they share no customer. */
function expectNoCustomerInTwoBatchesInFlight(refreshes: Refresh[]) {
  for (let k = 1; k < refreshes.length; k += 1) {
    if (refreshes[k]!.previousCommitted === refreshes[k - 1]!.drafts.length) continue;
    expect(refreshes[k]!.customers.filter((customer) => refreshes[k - 1]!.customers.includes(customer)), `refreshes ${k - 1} and ${k}`).toEqual([]);
  }
}

/**
 * Fifteen drafts, then a pass of the finalizer started while the entity row is held: it answers
 * once the first batch waits for that row and the second one is refreshed. `release` lets them go.
 */
async function passHeldAtEntityRow(h: Harness, eventPrefix: string, batchWaitMs?: number) {
  const { subs, run } = await fifteenDrafts(h, eventPrefix);
  const { lifecycle, refreshes } = recordingFinalizer(h, run, batchWaitMs);
  const release = await holdEntityRow(h);
  const finalizing = lifecycle.finalizeDueDrafts();
  try {
    await expect.poll(() => refreshes.length, { timeout: 10_000 }).toBe(2);
  } catch (error) {
    await release();
    throw error;
  }
  return { subs, refreshes, release, finalizing };
}

/** Whether the drafts of refresh `index` were all refreshed again by a later refresh. */
function refreshedAgain(refreshes: Refresh[], index: number): boolean {
  return refreshes.slice(index + 1).some((later) => refreshes[index]!.drafts.every((id) => later.drafts.includes(id)));
}

describe('grace-period finalizer, two batches in flight', () => {
  it('refreshes the next batch while the one before waits for its numbers, cut before a customer of that batch; numbers stay gapless in date order', async () => {
    const h = harness();
    // the first batch (four January drafts) is refreshed and waits for the entity row; the next is refreshed meanwhile
    const { subs, refreshes, release, finalizing } = await passHeldAtEntityRow(h, 'pipelined');
    try {
      expect(await finalizedCount(h, subs)).toBe(0);
      expect(refreshes[0]!.drafts).toHaveLength(4);
      // the fifth January draft, then February's, whose customers are in the first batch: the batch is cut before the first of them
      expect(refreshes[1]!.previousCommitted).toBe(0);
      expect(refreshes[1]!.drafts.length).toBeGreaterThanOrEqual(1);
      expect(refreshes[1]!.drafts.length).toBeLessThan(4);
    } finally {
      await release();
    }
    expect(await finalizing).toBe(15);
    expectNoCustomerInTwoBatchesInFlight(refreshes);
    await expectAllNumberedInDateOrder(h, subs);
  });

  it('a batch that waits too long for the one before rolls back and is done again after it: nothing numbered or billed twice', async () => {
    const h = harness();
    const { subs, refreshes, release, finalizing } = await passHeldAtEntityRow(h, 'retried', 200);
    try {
      // longer than the second batch's bound: it gives up and rolls back
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(await finalizedCount(h, subs)).toBe(0);
    } finally {
      await release();
    }
    expect(await finalizing).toBe(15);
    // the second batch's drafts were refreshed again, after the first batch committed
    expect(refreshedAgain(refreshes, 1)).toBe(true);
    await expectAllNumberedInDateOrder(h, subs);
  });

  it('a batch whose invoicing entity changed after its refresh is done again: every invoice shows the entity as it was when numbered', async () => {
    const h = harness();
    const { subs, refreshes, release, finalizing } = await passHeldAtEntityRow(h, 'renamed');
    // renamed while the first two batches, refreshed with the old name, wait for the entity row
    await release('Seller Renamed SAS');
    expect(await finalizing).toBe(15);
    await expectAllNumberedInDateOrder(h, subs);
    const sellers = await h.db.pool.query(
      `SELECT DISTINCT seller_details->>'legal_name' AS name FROM invoices WHERE tenant_id = $1 AND subscription_id = ANY($2)`, [h.tenant.id, subs.map((s) => s.subscriptionId)],
    );
    expect(sellers.rows).toEqual([{ name: 'Seller Renamed SAS' }]);
    // the first batch's drafts were refreshed again, with the new name
    expect(refreshedAgain(refreshes, 0)).toBe(true);
  });
});
