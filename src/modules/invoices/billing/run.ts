// The billing run: for every subscription, the invoices the engine (src/domain/billing) says are
// due as of the clock's date. Subscriptions are billed in batches, each batch one transaction:
// take the batch's subscription locks (advisory, without waiting: a subscription another process
// is billing is left to it), read what is already invoiced, compute, insert everything with
// multi-row statements. The unique indexes on (subscription, invoice date) and (subscription,
// period, type) stay the final guarantee: a colliding row is skipped, never billed twice. A crash
// rolls back the open batch only; the next run computes it again.
import { createHash } from 'node:crypto';
import { today, type Clock } from '../../../kernel/clock.js';
import { notFound } from '../../../kernel/errors.js';
import { jsonWithBigints } from '../../../kernel/money.js';
import type { Pool, Queryable } from '../../../db/pool.js';
import { withTx } from '../../../db/tx.js';
import { scoped } from '../../../db/tenant-scope.js';
import { writeOutboxEvents } from '../../../db/outbox.js';
import { addDays, earliestDate, nextOccasion, type BillingOccasion, type LocalDate } from '../../../domain/index.js';
import { loadSubscriptionRecord, loadSubscriptionRecords, tenantsWithSubscriptions, type SubscriptionRecord } from '../../subscriptions/index.js';
import { nextInvoiceDateOf } from '../next-invoice-date.js';
import { customerSnapshot } from '../customer.js';
import { ensureDefaultEntity, findEntity, type InvoicingEntityRow } from '../entities.js';
import { amountsOf, breakdownRows, couponLines, finalizeAfter, graceOver, lineRows, newDraftRow, withCurrentSeller, type DraftInvoiceInput } from '../drafts.js';
import { invoiceEventData } from '../events.js';
import type { InvoiceRow, NewLine, TaxBreakdownDbRow } from '../repository.js';
import {
  deleteContentBulk, insertContentBulk, insertInvoicesBulk, invoicesOfSubscriptions, occasionsOf, thresholdBilledOf, tryLockSubscriptions, updateInvoicesBulk,
} from './bulk-repository.js';
import { computePlanned, occasionsDue, type BillingSubject, type ComputedDraft, type LateWindows, type PlannedWork, type StoredInvoiceRef, type ThresholdBilledBySubscription } from './compute.js';
import { lateWindowsOf } from './late-usage.js';
import { lockUsageForBilling, recordBilledPeriods } from '../../usage/index.js';
import { loadCustomers, planTermsOf } from './context.js';
import { toEngineSnapshot, type PlanTerms } from './mapping.js';
import { groupBy } from '../../../kernel/collections.js';

/** Fingerprint of a computed draft's content (lines, details, coupons, tax). */
export function contentHash(input: DraftInvoiceInput): string {
  const content = { lines: input.computed.lines, details: input.lineDetails, coupons: input.computed.couponApplications, tax: input.computed.taxBreakdown };
  return createHash('sha1').update(jsonWithBigints(content)).digest('hex');
}

/** Subscriptions per transaction: big enough to amortize round trips, small enough to keep locks short. */
export const RUN_BATCH_SIZE = 500;
/** Batches in flight at once per process (one computes while the other waits on the database). */
const RUN_CONCURRENCY = 2;

export interface RunResult {
  subscriptions: number;
  invoicesCreated: number;
  /** Subscriptions the engine refused (invalid data); the others are billed. */
  failures: { subscriptionId: string; message: string }[];
}

/**
 * `testClockId`: the run bills the subscriptions of that test clock's customers, at `clock` (a
 * step of the clock's advance); absent, those on no test clock (the periodic run).
 */
export function createBillingRun(deps: { pool: Pool; clock: Clock; testClockId?: string; runBatchSize?: number }) {
  const { pool, clock } = deps;
  const batchSize = deps.runBatchSize ?? RUN_BATCH_SIZE;
  // Published plan versions never change, so their terms can be kept for the process's life.
  const planTerms = new Map<string, Promise<PlanTerms>>();
  const termsOf = (tenantId: string, planVersionId: string) => {
    const key = `${tenantId}:${planVersionId}`;
    let terms = planTerms.get(key);
    if (!terms) {
      terms = planTermsOf(pool, tenantId, planVersionId);
      planTerms.set(key, terms);
      terms.catch(() => planTerms.delete(key));
    }
    return terms;
  };

  /** Customers, plan terms and entities of many subscriptions, a few statements for the lot. */
  async function subjectsOf(db: Queryable, tenantId: string, sources: readonly SubscriptionRecord[], entityOverride?: Map<string, string>): Promise<Map<string, BillingSubject>> {
    const customers = await loadCustomers(db, tenantId, sources.map((s) => s.subscription.customer_id));
    const entities = new Map<string, InvoicingEntityRow>();
    const entity = async (id: string | null): Promise<InvoicingEntityRow> => {
      const key = id ?? '';
      let row = entities.get(key);
      if (!row) {
        row = (id ? await findEntity(db, tenantId, id) : undefined) ?? (await ensureDefaultEntity(db, tenantId, clock));
        entities.set(key, row);
      }
      return row;
    };
    const out = new Map<string, BillingSubject>();
    for (const source of sources) {
      const customer = customers.get(source.subscription.customer_id);
      if (!customer) continue;
      const entityId = entityOverride?.get(source.subscription.id) ?? customer.invoicing_entity_id;
      out.set(source.subscription.id, { source, customer, plan: await termsOf(tenantId, source.subscription.plan_version_id), entity: await entity(entityId) });
    }
    return out;
  }

  /**
   * Drafts of computed invoices, with lines and `invoice.created`, in multi-row statements. With
   * `usageLocked` (the transaction holds the billing lock and the late windows it read), a draft
   * whose grace period has already ended at `now` is final: its usage is recorded as billed here,
   * as its finalization would record it, and it is not computed again (docs/usage.md, "Late usage").
   */
  async function storeDrafts(tx: Queryable, tenantId: string, drafts: readonly ComputedDraft[], now: Date, usageLocked: boolean): Promise<number> {
    const rows = drafts.map((draft) => {
      const row = newDraftRow(draft.input, draft.subject.customer, draft.subject.entity, now);
      const final = usageLocked && graceOver(row.finalize_after, now);
      // the content hash only serves a later computation, which a final draft never gets
      return { draft, final, row: { ...row, billing_occasion: draft.occasion, content_hash: final ? null : contentHash(draft.input), usage_recorded_at: final ? now : null } };
    });
    const inserted = await insertInvoicesBulk(tx, tenantId, rows.map((r) => r.row));
    const kept = rows.filter((r) => inserted.has(r.row.id));
    await recordBilledPeriods(tx, tenantId, kept.filter((r) => r.final).flatMap((r) => r.draft.billedPeriods), now);
    const lines: NewLine[] = [];
    const breakdown: (TaxBreakdownDbRow & { invoice_id: string })[] = [];
    for (const { draft, row } of kept) {
      lines.push(...lineRows(row.id, draft.input, now.getTime()));
      breakdown.push(...breakdownRows(draft.input.computed.taxBreakdown).map((b) => ({ ...b, invoice_id: row.id })));
    }
    await insertContentBulk(tx, tenantId, lines, breakdown);
    await writeOutboxEvents(scoped(tx, tenantId), clock, kept.map(({ row }) => ({ type: 'invoice.created', objectId: row.id, data: invoiceEventData({ ...row, custom_properties: inserted.get(row.id) }) })));
    return kept.length;
  }

  /** Computes, keeping the subscriptions the engine refuses out of the batch instead of failing it. */
  async function computeSafely(tenantId: string, work: PlannedWork[], failures: RunResult['failures'], late: LateWindows, thresholdBilled: ThresholdBilledBySubscription): Promise<ComputedDraft[]> {
    try {
      return await computePlanned(pool, tenantId, work, late, thresholdBilled);
    } catch {
      const out: ComputedDraft[] = [];
      for (const item of work) {
        try {
          out.push(...(await computePlanned(pool, tenantId, [item], late, thresholdBilled)));
        } catch (error) {
          failures.push({ subscriptionId: item.subject.source.subscription.id, message: error instanceof Error ? error.message : String(error) });
        }
      }
      return out;
    }
  }

  /**
   * The invoice that carries late usage of a subscription that has ended: an ADJUSTMENT dated
   * `asOf`, when no invoice of it is due or waiting as a draft and the engine has no next one.
   */
  function lateAdjustmentOccasion(subject: BillingSubject, stored: readonly StoredInvoiceRef[], asOf: LocalDate): BillingOccasion | null {
    if (subject.source.subscription.status === 'PENDING_ACTIVATION' || stored.some((invoice) => invoice.status === 'DRAFT')) return null;
    if (nextOccasion(toEngineSnapshot(subject.source, subject.plan).snapshot, asOf) !== null) return null;
    return { kind: 'ADJUSTMENT', invoiceType: 'ADJUSTMENT', invoiceDate: asOf, periodStart: asOf, periodEnd: asOf, cycleIndex: null, adjustmentDates: [] };
  }

  /** One batch in one transaction; returns how many invoices it created. */
  async function billBatch(tenantId: string, sources: readonly SubscriptionRecord[], asOf: LocalDate, failures: RunResult['failures'] = []): Promise<number> {
    return withTx(pool, async (tx) => {
      const locked = await tryLockSubscriptions(tx, tenantId, sources.map((s) => s.subscription.id));
      const mine = sources.filter((s) => locked.has(s.subscription.id));
      if (mine.length === 0) return 0;
      // read after the locks: whatever another process committed for these is visible now
      const stored = groupBy(await invoicesOfSubscriptions(tx, tenantId, mine.map((s) => s.subscription.id)), (row) => row.subscription_id);
      const subjects = await subjectsOf(tx, tenantId, mine);
      const planned: { subject: BillingSubject; occasions: BillingOccasion[]; own: StoredInvoiceRef[] }[] = [];
      for (const source of mine) {
        const subject = subjects.get(source.subscription.id);
        if (!subject) continue;
        const own = stored.get(source.subscription.id) ?? [];
        try {
          planned.push({ subject, occasions: occasionsDue(subject, own, asOf), own });
        } catch (error) {
          failures.push({ subscriptionId: source.subscription.id, message: error instanceof Error ? error.message : String(error) });
        }
      }
      // A draft whose grace period is over when it is created is final (storeDrafts): as at its
      // finalization, the billing lock comes before any usage is read, and the late windows it
      // may bill are locked. A late adjustment would be dated asOf.
      const now = clock.now();
      const usageLocked = planned.some(({ subject, occasions }) => [...occasions.map((o) => o.invoiceDate), asOf]
        .some((date) => graceOver(finalizeAfter(date, subject.entity, subject.source.subscription.auto_advance_invoices), now)));
      if (usageLocked) await lockUsageForBilling(tx, tenantId);
      const late = await lateWindowsOf(tx, tenantId, mine.map((s) => s.subscription.id), usageLocked);
      const work: PlannedWork[] = [];
      for (const { subject, occasions, own } of planned) {
        try {
          const lateOccasion = occasions.length === 0 && late.has(subject.source.subscription.id) ? lateAdjustmentOccasion(subject, own, asOf) : null;
          if (lateOccasion) occasions.push(lateOccasion);
          if (occasions.length > 0) work.push({ subject, occasions, stored: own });
        } catch (error) {
          failures.push({ subscriptionId: subject.source.subscription.id, message: error instanceof Error ? error.message : String(error) });
        }
      }
      if (work.length === 0) return 0;
      const thresholdBilled = await thresholdBilledOf(tx, tenantId, work.map((w) => w.subject.source.subscription.id));
      return storeDrafts(tx, tenantId, await computeSafely(tenantId, work, failures, late, thresholdBilled), now, usageLocked);
    });
  }

  /** Creates the missing invoices of one subscription (a batch of one); returns how many it created. */
  async function billSubscription(tenantId: string, record: SubscriptionRecord, asOf: LocalDate): Promise<number> {
    return billBatch(tenantId, [record], asOf);
  }

  /** Every tenant's subscriptions, as of the clock's (UTC) date. */
  async function runAll(): Promise<RunResult> {
    // Cross-tenant on purpose: the scheduler serves every tenant, then works tenant by tenant.
    return runTenants(await tenantsWithSubscriptions(pool));
  }

  /**
   * These tenants' subscriptions (of the run's population), as of the clock's (UTC) date. Streams:
   * pages of `batchSize` subscriptions are read (keyset, oldest first) only as batches are taken,
   * so memory holds RUN_CONCURRENCY batches whatever the number of subscriptions.
   */
  async function runTenants(tenants: readonly string[]): Promise<RunResult> {
    const asOf = today(clock);
    const result: RunResult = { subscriptions: 0, invoicesCreated: 0, failures: [] };
    for (const tenantId of tenants) {
      let after: string | null = null;
      let done = false;
      // one reader at a time: each page starts after the previous page's last subscription
      let reading: Promise<unknown> = Promise.resolve();
      const nextPage = async (): Promise<SubscriptionRecord[]> => {
        const page: Promise<SubscriptionRecord[]> = reading.then(async () => {
          if (done) return [];
          const records = await loadSubscriptionRecords(pool, tenantId, { testClockId: deps.testClockId ?? null, after, limit: batchSize });
          if (records.length < batchSize) done = true;
          if (records.length > 0) after = records[records.length - 1]!.subscription.id;
          return records;
        });
        reading = page.catch(() => undefined);
        return page;
      };
      const worker = async () => {
        for (let batch = await nextPage(); batch.length > 0; batch = await nextPage()) {
          result.subscriptions += batch.length;
          const created = await billBatch(tenantId, batch, asOf, result.failures); // not `+= await`: it would read the sum before the other worker adds to it
          result.invoicesCreated += created;
        }
      };
      await Promise.all(Array.from({ length: RUN_CONCURRENCY }, worker));
    }
    return result;
  }

  /**
   * The one draft refresher, in the caller's tx (finalization, a change of the invoicing entity):
   * every draft takes its entity as it is now (seller details), and drafts of a subscription are
   * recomputed (late usage, tax of the entity's current country) for the occasion each was
   * created for. Writes what changed; same order in and out. When `finalizing`, the usage windows
   * each draft bills are then recorded with the usage module as billed (docs/usage.md, "Late
   * usage"): an event of such a window that this computation did not see is billed late on a
   * later invoice. A refresh that does not finalize records nothing, so its drafts stay open to
   * the usage that arrives before they are finalized. A draft that was final when it was created
   * (its usage recorded then, see storeDrafts) only takes the seller details.
   */
  async function refreshDrafts(tx: Queryable, tenantId: string, drafts: readonly InvoiceRow[], finalizing = false): Promise<InvoiceRow[]> {
    const seller = await withCurrentSeller(tx, tenantId, drafts);
    const recomputed = await recomputeDrafts(tx, tenantId, seller.rows, finalizing);
    const now = clock.now();
    await updateInvoicesBulk(tx, tenantId, recomputed.rows.filter((row) => seller.changed.has(row.id) && !recomputed.written.has(row.id)).map((row) => ({ ...row, updated_at: now })));
    return recomputed.rows;
  }

  /** The last refresh of drafts about to be finalized (see refreshDrafts). */
  function refreshForFinalization(tx: Queryable, tenantId: string, drafts: readonly InvoiceRow[]): Promise<InvoiceRow[]> {
    return refreshDrafts(tx, tenantId, drafts, true);
  }

  /** Recomputes subscription drafts and writes those whose content changed (`written`); drafts without a stored occasion (one-off invoices) and those final since their creation are kept. */
  async function recomputeDrafts(tx: Queryable, tenantId: string, drafts: readonly InvoiceRow[], finalizing: boolean): Promise<{ rows: InvoiceRow[]; written: Set<string> }> {
    const unchanged = { rows: [...drafts], written: new Set<string>() };
    const candidates = drafts.filter((d) => d.subscription_id !== null && d.status === 'DRAFT');
    if (candidates.length === 0) return unchanged;
    const occasions = await occasionsOf(tx, tenantId, candidates.map((d) => d.id));
    const withOccasion = candidates.filter((d) => occasions.has(d.id));
    if (withOccasion.length === 0) return unchanged;
    // before any usage is read: the rollup fold, which flags late events against recorded windows, waits for a finalizing transaction
    if (finalizing) await lockUsageForBilling(tx, tenantId);
    const subscriptionIds = [...new Set(withOccasion.map((d) => d.subscription_id!))];
    const late = await lateWindowsOf(tx, tenantId, subscriptionIds, finalizing);
    const sources = await loadSubscriptionRecords(pool, tenantId, { ids: subscriptionIds });
    const stored = groupBy(await invoicesOfSubscriptions(tx, tenantId, subscriptionIds), (row) => row.subscription_id);
    // a draft keeps the entity it was created for (its number comes from that entity)
    const subjects = await subjectsOf(tx, tenantId, sources);
    const work: (PlannedWork & { draft: InvoiceRow })[] = [];
    for (const draft of withOccasion) {
      const subject = subjects.get(draft.subscription_id!);
      if (!subject) continue;
      const entity = subject.entity.id === draft.invoicing_entity_id ? subject.entity : ((await findEntity(tx, tenantId, draft.invoicing_entity_id)) ?? subject.entity);
      work.push({ draft, subject: { ...subject, entity }, occasions: [occasions.get(draft.id)!.occasion as BillingOccasion], stored: (stored.get(draft.subscription_id!) ?? []) as StoredInvoiceRef[], excludeInvoiceId: draft.id });
    }
    const failures: RunResult['failures'] = [];
    const computed = await computeSafely(tenantId, work, failures, late, await thresholdBilledOf(tx, tenantId, subscriptionIds));
    // the invoice date identifies an invoice of a subscription
    const draftByKey = new Map(work.map((w) => [`${w.draft.subscription_id}|${w.draft.invoice_date}`, w.draft.id]));
    const byDraft = new Map<string, ComputedDraft>();
    for (const item of computed) {
      const draftId = draftByKey.get(`${item.subject.source.subscription.id}|${item.occasion.invoiceDate}`);
      if (draftId) byDraft.set(draftId, item);
    }
    const now = clock.now();
    const updated = new Map<string, InvoiceRow>();
    const changed: (InvoiceRow & { content_hash: string })[] = [];
    const lines: NewLine[] = [];
    const breakdown: (TaxBreakdownDbRow & { invoice_id: string })[] = [];
    const draftById = new Map(withOccasion.map((d) => [d.id, d]));
    for (const [draftId, item] of byDraft) {
      const draft = draftById.get(draftId)!;
      const computedInvoice = item.input.computed;
      const next = { ...draft, ...amountsOf(computedInvoice), coupons: couponLines(computedInvoice, item.input.couponNames), customer_details: customerSnapshot(item.subject.customer, now) };
      const hash = contentHash(item.input);
      if (hash === occasions.get(draftId)!.contentHash) {
        updated.set(draftId, next); // same lines: nothing to rewrite
        continue;
      }
      const row = { ...next, updated_at: now, content_hash: hash };
      updated.set(draftId, row);
      changed.push(row);
      lines.push(...lineRows(draftId, { ...item.input, invoiceDate: draft.invoice_date }, now.getTime()));
      breakdown.push(...breakdownRows(computedInvoice.taxBreakdown).map((b) => ({ ...b, invoice_id: draftId })));
    }
    await deleteContentBulk(tx, tenantId, changed.map((row) => row.id));
    await insertContentBulk(tx, tenantId, lines, breakdown);
    await updateInvoicesBulk(tx, tenantId, changed);
    if (finalizing) await recordBilledPeriods(tx, tenantId, [...byDraft.values()].flatMap((item) => item.billedPeriods), now);
    return { rows: drafts.map((d) => updated.get(d.id) ?? d), written: new Set(changed.map((row) => row.id)) };
  }

  /**
   * The earliest invoice date after the clock's date among a tenant's subscriptions of the run's
   * population, or null when none will invoice again: a test clock's advance stops there rather
   * than on every day. A subscription the engine refuses answers the next day (day by day is
   * always safe).
   */
  async function nextInvoiceDate(tenantId: string): Promise<LocalDate | null> {
    const asOf = today(clock);
    const dates: LocalDate[] = [];
    for (const record of await loadSubscriptionRecords(pool, tenantId, { testClockId: deps.testClockId ?? null })) {
      try {
        const date = nextInvoiceDateOf(record, asOf);
        if (date !== null) dates.push(date);
      } catch {
        return addDays(asOf, 1);
      }
    }
    return earliestDate(...dates);
  }


  /**
   * The subscription's next invoice, computed as the run would, without writing: the oldest due
   * invoice not created yet, else the engine's next occasion. Takes a stored subscription's id, or
   * a record not written yet (subscriptions' preparedRecord).
   */
  async function upcoming(tenantId: string, subscription: string | SubscriptionRecord): Promise<ComputedDraft | null> {
    // a record not written yet (the hosted checkout's prepared subscription) has no invoices: its first one is previewed
    const source = typeof subscription === 'string' ? await loadSubscriptionRecord(pool, tenantId, subscription) : subscription;
    if (!source) throw notFound('subscription');
    const subscriptionId = source.subscription.id;
    const subject = (await subjectsOf(pool, tenantId, [source])).get(subscriptionId);
    if (!subject) return null;
    const stored = await invoicesOfSubscriptions(pool, tenantId, [subscriptionId]);
    const todayDate = today(clock);
    let occasion: BillingOccasion | null = occasionsDue(subject, stored, todayDate)[0] ?? null;
    if (occasion === null && source.subscription.status !== 'PENDING_ACTIVATION') {
      occasion = nextOccasion(toEngineSnapshot(source, subject.plan).snapshot, todayDate);
    }
    if (occasion === null) return null;
    const late = await lateWindowsOf(pool, tenantId, [subscriptionId], false);
    const [computed] = await computePlanned(pool, tenantId, [{ subject, occasions: [occasion], stored }], late, await thresholdBilledOf(pool, tenantId, [subscriptionId]));
    return computed ?? null;
  }

  /**
   * The invoice that will close the subscription's current period, computed now as the preview
   * computes it but without threshold deductions or late usage: its usage windows are what the
   * period has accrued (spend thresholds, thresholds.ts). Null while an invoice is due and not
   * created yet (the period just ended: the run bills it first; `evenWhileDue` computes it anyway), when the subscription is not
   * billed by this run's population, or when no invoice will come.
   */
  async function currentPeriodInvoice(db: Queryable, tenantId: string, subscriptionId: string, options: { evenWhileDue?: boolean } = {}): Promise<ComputedDraft | null> {
    const source = await loadSubscriptionRecord(db, tenantId, subscriptionId);
    if (!source || source.subscription.status === 'PENDING_ACTIVATION') return null;
    if ((source.subscription.test_clock_id ?? null) !== (deps.testClockId ?? null)) return null;
    const subject = (await subjectsOf(db, tenantId, [source])).get(subscriptionId);
    if (!subject) return null;
    const stored = await invoicesOfSubscriptions(db, tenantId, [subscriptionId]);
    const asOf = today(clock);
    if (!options.evenWhileDue && occasionsDue(subject, stored, asOf).length > 0) return null;
    const occasion = nextOccasion(toEngineSnapshot(source, subject.plan).snapshot, asOf);
    if (occasion === null) return null;
    const [computed] = await computePlanned(pool, tenantId, [{ subject, occasions: [occasion], stored }]);
    return computed ?? null;
  }

  return { runAll, runTenants, nextInvoiceDate, billSubscription, billBatch, refreshDrafts, refreshForFinalization, upcoming, currentPeriodInvoice };
}

export type BillingRun = ReturnType<typeof createBillingRun>;
