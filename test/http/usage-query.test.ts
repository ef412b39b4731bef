import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { customerMetricUsage, customersMetricUsage, embeddedMetricUsage } from '../../src/modules/usage/index.js';
import { loadMetricDefinition } from '../../src/modules/metrics/index.js';
import { scoped } from '../../src/db/tenant-scope.js';

const harness = useHarness();

type Metrics = Record<'count' | 'sum' | 'min' | 'max' | 'mean' | 'latest' | 'distinct', string>;
let metrics: Metrics;
let customerId: string;
let otherCustomerId: string;

async function createMetric(body: Record<string, unknown>, familyId: string): Promise<string> {
  const res = await harness().request('POST', '/api/v1/metrics', { body: { product_family_id: familyId, ...body } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

const ev = (id: string, ts: string, props: Record<string, string>, customer = customerId) => ({ event_id: id, code: 'q_data', customer_id: customer, timestamp: ts, properties: props });

async function ingest(events: unknown[]) {
  const res = await harness().request('POST', '/api/v1/events/ingest', { body: { events, allow_backfilling: true } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function usage(customer: string, start: string, end: string, key?: string) {
  const res = await harness().request('GET', `/api/v1/usage/customer/${customer}?start_date=${start}&end_date=${end}`, { key });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { period_start: string; period_end: string; usage: { metric_id: string; total_value: string; grouped_usage: { value: string; dimensions: Record<string, string> }[] }[] };
}

function byMetric(body: Awaited<ReturnType<typeof usage>>) {
  const out = {} as Record<keyof Metrics, { total: string; groups: Record<string, string> }>;
  for (const [name, id] of Object.entries(metrics)) {
    const u = body.usage.find((x) => x.metric_id === id)!;
    out[name as keyof Metrics] = { total: u.total_value, groups: Object.fromEntries(u.grouped_usage.map((g) => [Object.values(g.dimensions).join('|'), g.value])) };
  }
  return out;
}

// Hand-computed expectations for March 2026 (see the events below).
const MARCH = {
  count: { total: '7', groups: { eu: '3', us: '4' } },
  sum: { total: '31.5', groups: { eu: '12.5', us: '19' } },
  min: { total: '-1', groups: { eu: '2.5', us: '-1' } },
  max: { total: '10', groups: { eu: '10', us: '9' } },
  mean: { total: '5.25', groups: { eu: '6.25', us: '4.75' } },
  latest: { total: '4', groups: { eu: '2.5', us: '4' } },
  distinct: { total: '4', groups: { '': '4' } },
};

beforeAll(async () => {
  const h = harness();
  const family = (await h.request('POST', '/api/v1/product_families', { body: { name: 'Usage' } })).json();
  metrics = {
    count: await createMetric({ name: 'Events', code: 'q_data', aggregation_type: 'COUNT', usage_group_key: 'region' }, family.id),
    sum: await createMetric({ name: 'Bytes', code: 'q_data', aggregation_type: 'SUM', aggregation_key: 'bytes', usage_group_key: 'region' }, family.id),
    min: await createMetric({ name: 'Min', code: 'q_data', aggregation_type: 'MIN', aggregation_key: 'bytes', usage_group_key: 'region' }, family.id),
    max: await createMetric({ name: 'Max', code: 'q_data', aggregation_type: 'MAX', aggregation_key: 'bytes', usage_group_key: 'region' }, family.id),
    mean: await createMetric({ name: 'Mean', code: 'q_data', aggregation_type: 'MEAN', aggregation_key: 'bytes', usage_group_key: 'region' }, family.id),
    latest: await createMetric({ name: 'Latest', code: 'q_data', aggregation_type: 'LATEST', aggregation_key: 'bytes', usage_group_key: 'region' }, family.id),
    distinct: await createMetric({ name: 'Users', code: 'q_data', aggregation_type: 'COUNT_DISTINCT', aggregation_key: 'user' }, family.id),
  };
  customerId = (await h.request('POST', '/api/v1/customers', { body: { name: 'Q', currency: 'EUR', alias: 'q-alias' } })).json().id;
  otherCustomerId = (await h.request('POST', '/api/v1/customers', { body: { name: 'R', currency: 'EUR' } })).json().id;
  await ingest([
    ev('q-e0', '2026-02-28T23:59:59.999Z', { bytes: '100', user: 'u1', region: 'eu' }),
    ev('q-e1', '2026-03-01T00:00:00Z', { bytes: '10', user: 'u1', region: 'eu' }), // boundary: March only
    ev('q-e2', '2026-03-02T05:30:00Z', { bytes: '2.5', user: 'u2', region: 'eu' }),
    ev('q-e3', '2026-03-10T08:00:00Z', { bytes: '7', user: 'u1', region: 'us' }),
    ev('q-e4', '2026-03-14T23:59:59.999Z', { bytes: '-1', user: 'u3', region: 'us' }),
    ev('q-e6', '2026-03-05T00:00:00Z', { bytes: 'abc', user: 'u2', region: 'eu' }), // counted, no value
    ev('q-e7', '2026-03-10T08:00:00Z', { bytes: '9', user: 'u4', region: 'us' }),
    ev('q-e8', '2026-03-14T23:59:59.999Z', { bytes: '4.00', user: 'u1', region: 'us' }), // ties q-e4: greater id wins LATEST
  ]);
  await ingest([ev('q-o1', '2026-03-03T00:00:00Z', { bytes: '1000', user: 'x', region: 'eu' }, otherCustomerId)]);
});

describe('GET /api/v1/usage/customer/{customer_id}', () => {
  it('computes every aggregation by hand-checked values, from raw events and again from rollups', async () => {
    const h = harness();
    const raw = await usage(customerId, '2026-03-01', '2026-04-01');
    expect(raw.period_start).toBe('2026-03-01');
    expect(raw.period_end).toBe('2026-04-01');
    expect(byMetric(raw)).toEqual(MARCH);
    await h.drainJobs();
    // Rollups fold transactions below the cluster's oldest running one; on a shared test server
    // another session's open transaction can hold that back for a moment.
    const rollupCells = async (): Promise<number> => {
      await h.service.tasks['usage.rollup']!({ tenant_id: h.tenant.id });
      return (await h.db.pool.query(`SELECT count(*)::int AS n FROM usage_rollups WHERE metric_id = $1`, [metrics.sum])).rows[0].n;
    };
    // (customer, hour, region) cells with a valid value, Feb and the other customer included
    await expect.poll(rollupCells, { timeout: 10_000, interval: 100 }).toBe(6);
    expect(byMetric(await usage(customerId, '2026-03-01', '2026-04-01'))).toEqual(MARCH);
    // by alias too
    expect(byMetric(await usage('q-alias', '2026-03-01', '2026-04-01'))).toEqual(MARCH);
  });

  it('counts only the events a segmentation matrix allows (single and linked), from raw events and again from rollups', async () => {
    const h = harness();
    const family = (await h.request('POST', '/api/v1/product_families', { body: { name: 'Segments' } })).json();
    const single = await createMetric({ name: 'EU bytes', code: 'q_seg', aggregation_type: 'SUM', aggregation_key: 'bytes', segmentation_matrix: { type: 'SINGLE', key: 'region', values: ['eu'] } }, family.id);
    const linked = await createMetric(
      { name: 'Hot EU, cold US', code: 'q_seg', aggregation_type: 'COUNT', segmentation_matrix: { type: 'LINKED', dimension1_key: 'region', dimension2_key: 'tier', values: { eu: ['hot'], us: ['cold'] } } },
      family.id,
    );
    const seg = (id: string, props: Record<string, string>) => ({ event_id: id, code: 'q_seg', customer_id: customerId, timestamp: '2026-03-04T10:00:00Z', properties: props });
    await ingest([
      seg('s1', { region: 'eu', tier: 'hot', bytes: '1' }),
      seg('s2', { region: 'eu', tier: 'cold', bytes: '2' }),
      seg('s3', { region: 'us', tier: 'cold', bytes: '4' }),
      seg('s4', { region: 'us', tier: 'hot', bytes: '8' }),
      seg('s5', { bytes: '16' }),
    ]);
    const totals = async () => {
      const body = await usage(customerId, '2026-03-01', '2026-04-01');
      return [single, linked].map((id) => body.usage.find((u) => u.metric_id === id)?.total_value);
    };
    expect(await totals()).toEqual(['3', '2']);
    await h.drainJobs();
    await expect.poll(async () => {
      await h.service.tasks['usage.rollup']!({ tenant_id: h.tenant.id });
      return (await h.db.pool.query(`SELECT count(DISTINCT metric_id)::int AS n FROM usage_rollups WHERE metric_id = ANY($1)`, [[single, linked]])).rows[0].n;
    }, { timeout: 10_000, interval: 100 }).toBe(2);
    expect(await totals()).toEqual(['3', '2']);
  });

  it('puts a boundary event in one period only (half-open)', async () => {
    const feb = byMetric(await usage(customerId, '2026-02-01', '2026-03-01'));
    expect(feb.sum).toEqual({ total: '100', groups: { eu: '100' } });
    expect(feb.count.total).toBe('1');
    const firstDay = byMetric(await usage(customerId, '2026-03-01', '2026-03-02'));
    expect(firstDay.sum.total).toBe('10');
  });

  it('stays exact with late and duplicate events after the rollups were built', async () => {
    const h = harness();
    await h.drainJobs();
    const late = ev('q-e9', '2026-03-03T01:00:00Z', { bytes: '0.5', user: 'u5', region: 'eu' });
    expect(await ingest([late, ev('q-e2', '2026-03-02T05:30:00Z', { bytes: '2.5', user: 'u2', region: 'eu' })])).toEqual({ ingested: 1, duplicates: 1, in_finalized_periods: 0, unknown_customer_events: 0 });
    const before = byMetric(await usage(customerId, '2026-03-01', '2026-04-01'));
    expect(before.sum).toEqual({ total: '32', groups: { eu: '13', us: '19' } });
    expect(before.mean.total).toBe('4.571428571429');
    expect(before.distinct.total).toBe('5');
    expect(before.count.total).toBe('8');
    await h.drainJobs();
    expect(byMetric(await usage(customerId, '2026-03-01', '2026-04-01'))).toEqual(before);
  });

  it('serves invoicing the same figures for any half-open instant period (edges read raw)', async () => {
    const h = harness();
    await h.drainJobs();
    const result = await customerMetricUsage(h.db.pool, h.tenant.id, {
      customerId,
      metricId: metrics.sum,
      periodStart: new Date('2026-03-10T07:30:00Z'),
      periodEnd: new Date('2026-03-14T23:59:59.999Z'),
    });
    expect(result).toEqual({ metricId: metrics.sum, metricName: 'Bytes', metricCode: 'q_data', totalValue: '16', groups: [{ dimensions: { region: 'us' }, value: '16' }] });
    const latest = await customerMetricUsage(h.db.pool, h.tenant.id, { customerId, metricId: metrics.latest, periodStart: new Date('2026-03-14T23:30:00Z'), periodEnd: new Date('2026-03-15T00:00:00Z') });
    expect(latest?.totalValue).toBe('4');
    expect(await customerMetricUsage(h.db.pool, h.other.id, { customerId, metricId: metrics.sum, periodStart: new Date('2026-03-01'), periodEnd: new Date('2026-04-01') })).toBeUndefined();
  });

  it('plans the usage read without parallel workers, however cheap the planner is told they are', async () => {
    const h = harness();
    // the one usage statement, as customersMetricUsage sends it
    let statement: { text: string; params: unknown[] } | undefined;
    const spy = new Proxy(h.db.pool, {
      get: (target, name) =>
        name === 'query'
          ? (text: string, params: unknown[]) => {
              if (text.includes('WITH state AS')) statement = { text, params };
              return target.query(text, params);
            }
          : Reflect.get(target, name),
    });
    const period = { periodStart: new Date('2026-03-01'), periodEnd: new Date('2026-04-01') };
    await customersMetricUsage(spy, h.tenant.id, { customers: [{ key: customerId, refs: [customerId] }], metricId: metrics.distinct, ...period });
    expect(statement).toBeDefined();
    const client = await h.db.pool.connect();
    try {
      // parallel plans made as cheap as they can be: any parallel-safe statement here gets a Gather
      for (const setting of ['parallel_setup_cost = 0', 'parallel_tuple_cost = 0', 'min_parallel_table_scan_size = 0', 'min_parallel_index_scan_size = 0', 'max_parallel_workers_per_gather = 2', 'enable_indexscan = off', 'enable_bitmapscan = off']) {
        await client.query(`SET ${setting}`);
      }
      const plan = async (text: string) => (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${text}`, statement!.params)).rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(await plan(statement!.text)).not.toContain('Gather');
      // the same statement without the parallel-unsafe call does get one, so the check above means something
      expect(await plan(statement!.text.replace('pg_current_xact_id_if_assigned()', 'NULL::xid8'))).toContain('Gather');
    } finally {
      client.release(true);
    }
  });

  it('gives the same figures from daily rollups, hourly rollups and raw events, for windows cut anywhere', async () => {
    const h = harness();
    const dayCustomer = (await h.request('POST', '/api/v1/customers', { body: { name: 'Days', currency: 'EUR' } })).json().id as string;
    const at = ['2026-02-01T00:00:00Z', '2026-02-01T23:59:59.999Z', '2026-02-02T00:00:00Z', '2026-02-02T05:17:00Z', '2026-02-02T05:59:00Z', '2026-02-03T12:00:00Z', '2026-02-03T23:30:00Z', '2026-02-04T00:30:00Z', '2026-02-05T13:44:59Z', '2026-02-05T13:45:00Z', '2026-02-06T09:00:00Z'];
    await ingest(at.map((ts, i) => ev(`q-day-${i}`, ts, { bytes: String(i * 3 - 7), user: `u${i % 4}`, region: i % 2 ? 'eu' : 'us' }, dayCustomer)));
    const windows = [
      ['2026-02-01T00:00:00Z', '2026-02-07T00:00:00Z'], // whole days only
      ['2026-02-02T05:17:00Z', '2026-02-05T13:45:00Z'], // partial hours, whole hours and whole days
      ['2026-02-01T23:30:00Z', '2026-02-03T00:30:00Z'], // one whole day between partial ones
      ['2026-02-02T00:00:00Z', '2026-02-02T10:00:00Z'], // whole hours, no whole day
      ['2026-02-03T23:00:00Z', '2026-02-05T01:00:00Z'], // whole hours around one whole day
      ['2026-02-05T13:44:00Z', '2026-02-05T13:46:00Z'], // inside one hour
    ];
    const read = async () => {
      const figures: Record<string, unknown> = {};
      for (const [from, to] of windows) {
        for (const [name, metricId] of Object.entries(metrics)) {
          figures[`${name} ${from} ${to}`] = await customerMetricUsage(h.db.pool, h.tenant.id, { customerId: dayCustomer, metricId, periodStart: new Date(from!), periodEnd: new Date(to!) });
        }
      }
      return figures;
    };
    // the same reads as a part of another statement, their rows as JSON (the entitlement check's)
    const readEmbedded = async () => {
      const figures: Record<string, unknown> = {};
      for (const [from, to] of windows) {
        for (const [name, metricId] of Object.entries(metrics)) {
          const def = (await loadMetricDefinition(h.db.pool, h.tenant.id, metricId))!;
          const embedded = embeddedMetricUsage(def, { customers: [{ key: dayCustomer, refs: [dayCustomer] }], periodStart: new Date(from!), periodEnd: new Date(to!) }, 3);
          const [row] = await scoped(h.db.pool, h.tenant.id).query<{ usage: unknown }>(`SELECT $2::text AS other, ${embedded.text} AS usage`, ['another parameter', ...embedded.params]);
          figures[`${name} ${from} ${to}`] = embedded.usageOf(row!.usage).byCustomer.get(dayCustomer);
        }
      }
      return figures;
    };
    const daily = async () => Number((await h.db.pool.query(`SELECT count(*)::int AS n FROM usage_rollups_daily WHERE tenant_id = $1 AND customer_ref = $2`, [h.tenant.id, dayCustomer])).rows[0].n);
    expect(await daily()).toBe(0);
    // not folded yet: every figure from the raw events above the watermark and the edges
    const raw = await read();
    // a hand check of one: SUM of bytes over the second window (events 3 to 8: 2 + 5 + 8 + 11 + 14 + 17)
    expect((raw[`sum ${windows[1]![0]} ${windows[1]![1]}`] as { totalValue: string }).totalValue).toBe('57');
    expect(await readEmbedded()).toEqual(raw);
    await expect.poll(async () => {
      await h.service.tasks['usage.rollup']!({ tenant_id: h.tenant.id });
      return daily();
    }, { timeout: 10_000, interval: 100 }).toBeGreaterThanOrEqual(6);
    expect(await read()).toEqual(raw);
    expect(await readEmbedded()).toEqual(raw);
  });

  it('reads one customer by index also in a plan made once for all values (the entitlement check\'s connections)', async () => {
    const h = harness();
    const statements: { text: string; params: unknown[] }[] = [];
    const spy = new Proxy(h.db.pool, {
      get: (target, name) =>
        name === 'query'
          ? (text: string, params: unknown[]) => {
              if (text.includes('WITH state AS')) statements.push({ text, params });
              return target.query(text, params);
            }
          : Reflect.get(target, name),
    });
    const period = { periodStart: new Date('2026-03-01'), periodEnd: new Date('2026-04-01') };
    for (const metricId of [metrics.sum, metrics.distinct]) {
      await customersMetricUsage(spy, h.tenant.id, { customers: [{ key: customerId, refs: [customerId, 'q-alias'] }], metricId, ...period });
    }
    expect(statements).toHaveLength(2);
    const client = await h.db.pool.connect();
    try {
      // The tables are tiny here, so the planner would pick the cheapest scan whatever the
      // conditions: left only the indexes that start with the customer (rolled back below).
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      await client.query('DROP INDEX usage_rollups_metric_hour_idx, usage_rollups_daily_metric_day_idx');
      for (const { text } of statements) {
        const plan = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (GENERIC_PLAN, COSTS OFF) ${text}`)).rows.map((r) => r['QUERY PLAN']);
        const conditions = plan.filter((line) => line.includes('Index Cond'));
        // the rollups (and, for COUNT_DISTINCT, their distinct values) by customer; events not folded by customer
        expect(conditions.filter((line) => /tenant_id = \$1\) AND \(metric_id = \$2\) AND \(customer_ref = ANY/.test(line)).length, plan.join('\n')).toBeGreaterThanOrEqual(1);
        expect(conditions.some((line) => /customer_ref = ANY/.test(line) && /tenant_key/.test(line)), plan.join('\n')).toBe(true);
        expect(plan.join('\n')).not.toMatch(/IS NULL\) OR/);
      }
    } finally {
      await client.query('ROLLBACK');
      client.release(true);
    }
  });

  it('gives a billing batch (many customers at once) the figures of each customer alone, for every aggregation', async () => {
    const h = harness();
    await h.drainJobs();
    const silentId = (await h.request('POST', '/api/v1/customers', { body: { name: 'Silent', currency: 'EUR' } })).json().id as string;
    const customers = [
      { key: customerId, refs: [customerId, 'q-alias'] },
      { key: otherCustomerId, refs: [otherCustomerId] },
      { key: silentId, refs: [silentId] },
    ];
    // partial hours at both edges (raw) around whole hours (rollups and their raw tail)
    const period = { periodStart: new Date('2026-03-01T00:30:00Z'), periodEnd: new Date('2026-03-14T23:59:59.999Z') };
    for (const [name, metricId] of Object.entries(metrics)) {
      const batch = await customersMetricUsage(h.db.pool, h.tenant.id, { customers, metricId, ...period });
      for (const { key } of customers) {
        const alone = await customerMetricUsage(h.db.pool, h.tenant.id, { customerId: key, metricId, ...period });
        expect(batch?.byCustomer.get(key), `${name} of ${key}`).toEqual(alone);
      }
    }
    // and the usage API shows the same: whole days, where every hour is a rollup hour
    for (const [name, metricId] of Object.entries(metrics)) {
      const batch = await customersMetricUsage(h.db.pool, h.tenant.id, { customers, metricId, periodStart: new Date('2026-03-01'), periodEnd: new Date('2026-04-01') });
      const api = (await usage(customerId, '2026-03-01', '2026-04-01')).usage.find((u) => u.metric_id === metricId)!;
      expect(batch?.byCustomer.get(customerId)?.totalValue, name).toBe(api.total_value);
    }
  });

  it('links backfilled events held by alias to a customer created afterwards', async () => {
    const h = harness();
    await ingest([ev('q-m1', '2026-01-20T10:00:00Z', { bytes: '3', user: 'm', region: 'eu' }, 'legacy-7'), ev('q-m2', '2026-01-21T10:00:00Z', { bytes: '4', user: 'm', region: 'eu' }, 'legacy-7')]);
    await h.drainJobs();
    const created = (await h.request('POST', '/api/v1/customers', { body: { name: 'Migrated', currency: 'EUR', alias: 'legacy-7' } })).json();
    const jan = byMetric(await usage(created.id, '2026-01-01', '2026-02-01'));
    expect(jan.sum).toEqual({ total: '7', groups: { eu: '7' } });
    expect(jan.count.total).toBe('2');
  });

  it('filters by metric_id, validates the period, and is tenant-isolated', async () => {
    const h = harness();
    const one = await h.request('GET', `/api/v1/usage/customer/${customerId}?start_date=2026-03-01&end_date=2026-04-01&metric_id=${metrics.max}`);
    expect(one.json().usage).toEqual([{ metric_id: metrics.max, metric_name: 'Max', metric_code: 'q_data', total_value: '10', grouped_usage: [{ value: '10', dimensions: { region: 'eu' } }, { value: '9', dimensions: { region: 'us' } }] }]);
    const reversed = await h.request('GET', `/api/v1/usage/customer/${customerId}?start_date=2026-04-01&end_date=2026-03-01`);
    expect(reversed.statusCode).toBe(400);
    expect(reversed.json()).toEqual({ code: 'BAD_REQUEST', message: 'end_date must be after start_date (periods are [start_date, end_date))' });
    const missing = await h.request('GET', `/api/v1/usage/customer/${customerId}?start_date=2026-03-01`);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toContain('end_date');
    const badDate = await h.request('GET', `/api/v1/usage/customer/${customerId}?start_date=2026-02-30&end_date=2026-04-01`);
    expect(badDate.statusCode).toBe(400);
    expect(badDate.json().message).toContain('start_date');
    const foreign = await h.request('GET', `/api/v1/usage/customer/${customerId}?start_date=2026-03-01&end_date=2026-04-01`, { key: h.other.apiKey });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ code: 'NOT_FOUND', message: 'customer not found' });
    const foreignMetric = await h.request('GET', `/api/v1/usage/summary?start_date=2026-03-01&end_date=2026-04-01&metric_id=${metrics.sum}`, { key: h.other.apiKey });
    expect(foreignMetric.statusCode).toBe(400);
    expect(foreignMetric.json().message).toContain('metric_id');
  });
});

describe('GET /api/v1/usage/summary and /subscription', () => {
  it('sums every customer of the tenant', async () => {
    const h = harness();
    const res = await h.request('GET', `/api/v1/usage/summary?start_date=2026-03-03&end_date=2026-03-04&metric_id=${metrics.sum}`);
    expect(res.statusCode).toBe(200);
    // q-o1 (other customer, 1000) and q-e9 (0.5) fall on March 3rd
    expect(res.json().usage[0]).toMatchObject({ total_value: '1000.5', grouped_usage: [{ value: '1000.5', dimensions: { region: 'eu' } }] });
    const other = await h.request('GET', '/api/v1/usage/summary?start_date=2026-03-01&end_date=2026-04-01', { key: h.other.apiKey });
    expect(other.json()).toEqual({ period_start: '2026-03-01', period_end: '2026-04-01', usage: [] });
  });

  it('answers 404 for an unknown subscription', async () => {
    const res = await harness().request('GET', '/api/v1/usage/subscription/sub_missing');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ code: 'NOT_FOUND', message: 'subscription not found' });
  });
});
