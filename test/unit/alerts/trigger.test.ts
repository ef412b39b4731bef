import { describe, expect, it } from 'vitest';
import type { Pool } from '../../../src/db/pool.js';
import { createAlertTrigger } from '../../../src/modules/alerts/trigger.js';

/** A pool that answers the index query with these active alerts and counts how often it is asked. */
function fakePool(alerts: { id: string; kind: string; customer_id: string; metric_code: string | null }[]) {
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
  let release: () => void = () => {};
  let blocked = false;
  return {
    rounds,
    block() {
      blocked = true;
    },
    unblock() {
      blocked = false;
      release();
    },
    evaluate: async (tenantId: string, ids: string[]) => {
      rounds.push({ tenantId, ids: [...ids].sort() });
      if (blocked) await new Promise<void>((resolve) => (release = resolve));
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
});
