import { describe, expect, it } from 'vitest';
import type { Pool } from '../../../src/db/pool.js';
import { createEstimates } from '../../../src/modules/alerts/estimate.js';
import { createAlertTrigger } from '../../../src/modules/alerts/trigger.js';

/** A pool that answers the index query with these active alerts and counts how often it is asked. */
function fakePool(alerts: { id: string; kind: string; customer_id: string; metric_code: string | null; metric_id?: string }[]) {
  const calls = { index: 0 };
  const pool = {
    query: async () => {
      calls.index += 1;
      return { rows: alerts };
    },
  } as unknown as Pool;
  return { pool, calls };
}

function recorder() {
  const rounds: { tenantId: string; ids: string[] }[] = [];
  const releases: (() => void)[] = [];
  let blocked = false;
  return {
    rounds,
    block() {
      blocked = true;
    },
    unblock() {
      blocked = false;
      for (const release of releases.splice(0)) release();
    },
    evaluate: async (tenantId: string, ids: string[]) => {
      rounds.push({ tenantId, ids: [...ids].sort() });
      if (blocked) await new Promise<void>((resolve) => releases.push(resolve));
    },
  };
}

describe('alert trigger (the ingest hook)', () => {
  it('evaluates only the alerts a batch touches: usage alerts by customer and code, spend and balance alerts by customer', async () => {
    const { pool } = fakePool([
      { id: 'alr_usage', kind: 'USAGE_UNITS', customer_id: 'cus_a', metric_code: 'calls' },
      { id: 'alr_other_metric', kind: 'USAGE_UNITS', customer_id: 'cus_a', metric_code: 'bytes' },
      { id: 'alr_spend', kind: 'SPEND', customer_id: 'cus_a', metric_code: null },
      { id: 'alr_b', kind: 'USAGE_UNITS', customer_id: 'cus_b', metric_code: 'calls' },
    ]);
    const r = recorder();
    const trigger = createAlertTrigger({ pool, evaluate: r.evaluate });
    trigger.eventsStored('ten_1', [
      { customerRef: 'cus_a', code: 'calls' },
      { customerRef: 'cus_a', code: 'calls' },
      { customerRef: 'cus_c', code: 'calls' },
      { customerRef: 'cus_b', code: 'calls', unresolved: true }, // an alias no customer has: no alert watches it
    ]);
    await trigger.idle();
    expect(r.rounds).toEqual([{ tenantId: 'ten_1', ids: ['alr_spend', 'alr_usage'] }]);
  });

  it('costs no evaluation and no read for a tenant without alerts once its index is loaded', async () => {
    const { pool, calls } = fakePool([]);
    const r = recorder();
    const trigger = createAlertTrigger({ pool, evaluate: r.evaluate });
    for (let i = 0; i < 100; i++) trigger.eventsStored('ten_1', [{ customerRef: 'cus_a', code: 'calls' }]);
    await trigger.idle();
    expect(calls.index).toBe(1);
    expect(r.rounds).toEqual([]);
  });

  it('coalesces: batches arriving while a round runs make one more round, not one each', async () => {
    const { pool } = fakePool([
      { id: 'alr_a', kind: 'USAGE_UNITS', customer_id: 'cus_a', metric_code: 'calls' },
      { id: 'alr_b', kind: 'USAGE_UNITS', customer_id: 'cus_b', metric_code: 'calls' },
    ]);
    const r = recorder();
    const trigger = createAlertTrigger({ pool, evaluate: r.evaluate });
    r.block();
    trigger.eventsStored('ten_1', [{ customerRef: 'cus_a', code: 'calls' }]);
    await expect.poll(() => r.rounds.length).toBe(1);
    for (let i = 0; i < 50; i++) trigger.eventsStored('ten_1', [{ customerRef: i % 2 ? 'cus_a' : 'cus_b', code: 'calls' }]);
    r.unblock();
    await trigger.idle();
    expect(r.rounds).toEqual([
      { tenantId: 'ten_1', ids: ['alr_a'] },
      { tenantId: 'ten_1', ids: ['alr_a', 'alr_b'] },
    ]);
  });

  it('fast lane: an alert the batch may have pushed over its next threshold is evaluated at once in its own round, while the round of the others runs', async () => {
    const { pool } = fakePool([
      { id: 'alr_probe', kind: 'USAGE_UNITS', customer_id: 'cus_p', metric_code: 'calls', metric_id: 'bm_calls' },
      // LATEST may fall with any event: never held, so every batch of it takes a usual round
      { id: 'alr_busy', kind: 'USAGE_UNITS', customer_id: 'cus_b', metric_code: 'calls', metric_id: 'bm_level' },
    ]);
    const estimates = createEstimates();
    const r = recorder();
    // the measured values an evaluation reports, as evaluate.ts does
    const values = new Map([['alr_probe', '0'], ['alr_busy', '0']]);
    const evaluate = async (tenantId: string, ids: string[]) => {
      const started = estimates.starts(ids);
      for (const id of ids) estimates.measured(started, id, values.get(id)!, id === 'alr_probe' ? ['1'] : ['1000000']);
      await r.evaluate(tenantId, ids);
    };
    const metricOf = async (_tenantId: string, metricId: string) => (metricId === 'bm_level' ? { aggregation: 'LATEST' as const, property: 'level' } : { aggregation: 'COUNT' as const, property: null });
    const trigger = createAlertTrigger({ pool, evaluate, fastLane: { estimates, metricOf } });
    trigger.evaluateSoon('ten_1', ['alr_probe', 'alr_busy']);
    await trigger.idle();
    expect(r.rounds).toEqual([{ tenantId: 'ten_1', ids: ['alr_busy', 'alr_probe'] }]);

    // a usual round of the busy alert is running (blocked), and the probe's event comes in
    r.block();
    trigger.eventsStored('ten_1', [{ customerRef: 'cus_b', code: 'calls', properties: { level: '3' } }]);
    await expect.poll(() => r.rounds.length).toBe(2);
    trigger.eventsStored('ten_1', [{ customerRef: 'cus_p', code: 'calls' }]);
    await expect.poll(() => r.rounds.length).toBe(3);
    expect(r.rounds[2]).toEqual({ tenantId: 'ten_1', ids: ['alr_probe'] });
    r.unblock();
    await trigger.idle();
    // the probe was not evaluated again by a usual round: its fast round read after its event
    expect(r.rounds.slice(3).flatMap((round) => round.ids)).not.toContain('alr_probe');

    // an event that cannot reach the busy alert's threshold takes the usual rounds only
    const before = r.rounds.length;
    trigger.eventsStored('ten_1', [{ customerRef: 'cus_b', code: 'calls', properties: { level: '3' } }]);
    await trigger.idle();
    expect(r.rounds.slice(before)).toEqual([{ tenantId: 'ten_1', ids: ['alr_busy'] }]);
  });

  it('holds quiet alerts back from the usual rounds, and measures them again together after a second', async () => {
    const ids = ['alr_x', 'alr_y'];
    const { pool } = fakePool(ids.map((id, i) => ({ id, kind: 'USAGE_UNITS', customer_id: `cus_${i}`, metric_code: 'calls', metric_id: 'bm_calls' })));
    const estimates = createEstimates();
    const r = recorder();
    const evaluate = async (tenantId: string, evaluated: string[]) => {
      const started = estimates.starts(evaluated);
      for (const id of evaluated) estimates.measured(started, id, '0', ['1000']);
      await r.evaluate(tenantId, evaluated);
    };
    const trigger = createAlertTrigger({ pool, evaluate, fastLane: { estimates, metricOf: async () => ({ aggregation: 'COUNT', property: null }) } });
    trigger.evaluateSoon('ten_1', ids);
    await trigger.idle();
    expect(r.rounds).toHaveLength(1);

    // 0 + 10 events cannot reach 1,000, and a count cannot fall: no round for now
    const heldAt = Date.now();
    for (let i = 0; i < 10; i++) trigger.eventsStored('ten_1', [{ customerRef: 'cus_0', code: 'calls' }, { customerRef: 'cus_1', code: 'calls' }]);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(r.rounds).toHaveLength(1);
    // then both are measured again, in one round, about a second after they were first held
    await trigger.idle();
    expect(Date.now() - heldAt).toBeGreaterThanOrEqual(950);
    expect(r.rounds.slice(1)).toEqual([{ tenantId: 'ten_1', ids }]);
  });
});
