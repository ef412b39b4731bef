import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';

const harness = useHarness();

let customerId: string;
let countMetric: string;
let sumMetric: string;

interface Job {
  id: string;
  status: string;
  total_items: number | null;
  processed_items: number;
  failed_items: number;
  failure_count?: number;
}

async function createJob(body: Record<string, unknown>, key?: string) {
  return harness().request('POST', '/api/v1/batch-jobs', { body, key });
}

/** Drains the queue until the job reaches a final status (chunks of one job run in order). */
async function settle(jobId: string, key?: string): Promise<Job> {
  const h = harness();
  let job: Job | undefined;
  for (let round = 0; round < 6; round++) {
    await h.drainJobs();
    job = (await h.request('GET', `/api/v1/batch-jobs/${jobId}`, { key })).json();
    if (!['PENDING', 'CHUNKING', 'PROCESSING'].includes(job!.status)) return job!;
  }
  throw new Error(`batch job ${jobId} still ${job?.status}`);
}

async function usageTotals(): Promise<{ count: string; sum: string }> {
  const res = await harness().request('GET', `/api/v1/usage/customer/${customerId}?start_date=2026-03-01&end_date=2026-04-01`);
  expect(res.statusCode, res.body).toBe(200);
  const usage = res.json().usage as { metric_id: string; total_value: string }[];
  return { count: usage.find((u) => u.metric_id === countMetric)!.total_value, sum: usage.find((u) => u.metric_id === sumMetric)!.total_value };
}

async function failures(jobId: string, query = '') {
  const res = await harness().request('GET', `/api/v1/batch-jobs/${jobId}/failures${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { data: { id: string; chunk_id: string; item_index: number; item_identifier: string | null; reason: string }[]; total_count: number };
}

beforeAll(async () => {
  const h = harness();
  const family = (await h.request('POST', '/api/v1/product_families', { body: { name: 'Imports' } })).json();
  const metric = async (body: Record<string, unknown>) => {
    const res = await h.request('POST', '/api/v1/metrics', { body: { product_family_id: family.id, ...body } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  countMetric = await metric({ name: 'Calls', code: 'imp_calls', aggregation_type: 'COUNT' });
  sumMetric = await metric({ name: 'Tokens', code: 'imp_calls', aggregation_type: 'SUM', aggregation_key: 'tokens' });
  const customer = await h.request('POST', '/api/v1/customers', { body: { name: 'Acme', currency: 'EUR', alias: 'acme' } });
  expect(customer.statusCode, customer.body).toBe(201);
  customerId = customer.json().id;
});

const EVENTS_CSV = () =>
  [
    'event_code,customer_id,customer_alias,event_id,timestamp,tokens,region',
    `imp_calls,${customerId},,,2026-03-01T10:00:00Z,10,eu`,
    'imp_calls,,acme,,2026-03-02T10:00:00Z,5,',
    'imp_calls,,acme,given-1,2026-03-03T10:00:00Z,"7",us',
  ].join('\n');

describe('event CSV import', () => {
  it('imports events end to end, then refuses the same file and never counts it twice', async () => {
    const h = harness();
    const before = await usageTotals();
    expect(before).toEqual({ count: '0', sum: '0' });

    const created = await createJob({ job_type: 'EVENT_CSV_IMPORT', file_name: 'march.csv', csv: EVENTS_CSV() });
    expect(created.statusCode, created.body).toBe(201);
    const job = created.json();
    expect(job).toEqual({
      id: expect.stringMatching(/^bjob_[0-9A-Z]{26}$/),
      job_type: 'EVENT_CSV_IMPORT',
      status: 'PENDING',
      input_file_name: 'march.csv',
      total_items: 3,
      processed_items: 0,
      failed_items: 0,
      matched_items: null,
      created_by: expect.stringMatching(/^key_/),
      created_at: '2026-03-15T12:00:00.000Z',
      completed_at: null,
      failure_count: 0,
      has_error_csv: false,
      error_csv_url: null,
      input_file_url: null,
    });

    const done = await settle(job.id);
    expect(done).toMatchObject({ status: 'COMPLETED', total_items: 3, processed_items: 3, failed_items: 0, failure_count: 0, completed_at: '2026-03-15T12:00:00.000Z' });
    expect(await usageTotals()).toEqual({ count: '3', sum: '22' });
    // every other non-empty column became a property; a blank event_id was derived, a given one kept
    const { rows } = await h.db.pool.query(`SELECT event_id, properties FROM usage_events WHERE tenant_key = (SELECT key FROM tenants WHERE id = $1) AND code = 'imp_calls' ORDER BY ts`, [h.tenant.id]);
    expect(rows.map((r) => r.properties)).toEqual([{ tokens: '10', region: 'eu' }, { tokens: '5' }, { tokens: '7', region: 'us' }]);
    expect(rows[0].event_id).toMatch(/^csv_[0-9a-f]{32}_0$/);
    expect(rows[2].event_id).toBe('given-1');

    const again = await createJob({ job_type: 'EVENT_CSV_IMPORT', csv: EVENTS_CSV() });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ code: 'CONFLICT', message: expect.stringContaining(`batch job ${job.id}`) });
    expect(again.json().message).toContain('force_duplicate');

    const forced = await createJob({ job_type: 'EVENT_CSV_IMPORT', csv: EVENTS_CSV(), force_duplicate: true });
    expect(forced.statusCode, forced.body).toBe(201);
    expect(forced.json().id).not.toBe(job.id);
    // the same file while that job is still active answers the active job
    const whileActive = await createJob({ job_type: 'EVENT_CSV_IMPORT', csv: EVENTS_CSV(), force_duplicate: true });
    expect(whileActive.statusCode).toBe(200);
    expect(whileActive.json().id).toBe(forced.json().id);

    expect(await settle(forced.json().id)).toMatchObject({ status: 'COMPLETED', processed_items: 3, failed_items: 0 });
    expect(await usageTotals()).toEqual({ count: '3', sum: '22' });
  });

  it('chunks by 500 rows, records per-row failures, and lists them with limit/offset/chunk_id', async () => {
    const h = harness();
    const lines = ['event_code;customer_alias;timestamp;tokens'];
    for (let i = 0; i < 1201; i++) lines.push(`imp_calls;acme;2026-03-0${(i % 9) + 1}T00:00:00Z;1`);
    lines[1 + 3] = 'imp_calls;;2026-03-04T00:00:00Z;1'; // no customer
    lines[1 + 700] = 'imp_calls;acme;not-a-date;1';
    lines[1 + 1200] = ';acme;2026-03-04T00:00:00Z;1'; // no event_code
    const before = await usageTotals();
    const res = await createJob({ job_type: 'EVENT_CSV_IMPORT', csv: lines.join('\r\n'), params: { delimiter: ';' } });
    expect(res.statusCode, res.body).toBe(201);
    const jobId = res.json().id as string;
    const chunks = await h.db.pool.query(`SELECT id, chunk_index, first_item_index, item_count FROM batch_job_chunks WHERE batch_job_id = $1 ORDER BY chunk_index`, [jobId]);
    expect(chunks.rows.map((c) => [c.chunk_index, c.first_item_index, c.item_count])).toEqual([[0, 0, 500], [1, 500, 500], [2, 1000, 201]]);

    const done = await settle(jobId);
    expect(done).toMatchObject({ status: 'COMPLETED_WITH_ERRORS', total_items: 1201, processed_items: 1198, failed_items: 3, failure_count: 3 });
    expect(Number((await usageTotals()).count) - Number(before.count)).toBe(1198);

    const all = await failures(jobId);
    expect(all.total_count).toBe(3);
    expect(all.data.map((f) => [f.item_index, f.chunk_id, f.reason])).toEqual([
      [3, chunks.rows[0].id, 'customer_id or customer_alias is required'],
      [700, chunks.rows[1].id, "timestamp 'not-a-date' is not an RFC 3339 date-time"],
      [1200, chunks.rows[2].id, 'event_code is empty'],
    ]);
    expect(all.data[0]!.item_identifier).toMatch(/^csv_[0-9a-f]{32}_3$/);
    expect(all.data[0]!.id).toMatch(/^[0-9a-f-]{36}$/);
    const page = await failures(jobId, '?limit=1&offset=1');
    expect(page).toEqual({ data: [all.data[1]], total_count: 3 });
    const ofChunk = await failures(jobId, `?chunk_id=${chunks.rows[2].id}`);
    expect(ofChunk).toEqual({ data: [all.data[2]], total_count: 1 });
  });

  it('with fail_on_error a bad row fails its whole chunk and nothing of it is stored', async () => {
    const lines = ['event_code,customer_alias,timestamp'];
    for (let i = 0; i < 501; i++) lines.push(`imp_calls,acme,2026-03-10T00:00:0${i % 10}Z`);
    lines[1 + 10] = 'imp_calls,ghost-cus,2026-03-10T00:00:00Z'; // fine: an unknown alias is kept with backfilling
    lines[1 + 20] = 'imp_calls,acme,2999-01-01T00:00:00Z'; // in the future: refused
    const before = Number((await usageTotals()).count);
    const res = await createJob({ job_type: 'EVENT_CSV_IMPORT', csv: lines.join('\n'), params: { fail_on_error: true } });
    expect(res.statusCode, res.body).toBe(201);
    const done = await settle(res.json().id);
    expect(done).toMatchObject({ status: 'COMPLETED_WITH_ERRORS', processed_items: 1, failed_items: 500, failure_count: 1 });
    const list = await failures(done.id);
    expect(list.data.map((f) => [f.item_index, f.reason])).toEqual([[20, 'timestamp 2999-01-01T00:00:00.000Z is more than 1 hour in the future']]);
    expect(Number((await usageTotals()).count) - before).toBe(1); // only the second chunk's row
  });
});

describe('creation validation', () => {
  it('refuses bad requests with a message naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ job_type: 'SUBSCRIPTION_CSV_IMPORT', csv: 'a\n1' }, 'job_type'],
      [{ job_type: 'EVENT_CSV_IMPORT' }, 'csv'],
      [{ job_type: 'EVENT_CSV_IMPORT', csv: 'customer_id\nx' }, "csv header must have an 'event_code' column"],
      [{ job_type: 'EVENT_CSV_IMPORT', csv: 'event_code\nx' }, "csv header must have a 'customer_id' or 'customer_alias' column"],
      [{ job_type: 'EVENT_CSV_IMPORT', csv: 'event_code,customer_id\n' }, 'csv has a header but no data rows'],
      [{ job_type: 'EVENT_CSV_IMPORT', csv: '' }, 'csv is empty'],
      [{ job_type: 'EVENT_CSV_IMPORT', csv: 'event_code,customer_id\n"x,y' }, 'csv has a quoted field that is never closed'],
      [{ job_type: 'EVENT_CSV_IMPORT', csv: 'event_code,event_code\nx,y' }, "csv header repeats column 'event_code'"],
      [{ job_type: 'EVENT_CSV_IMPORT', csv: 'event_code,customer_id\nx,y', params: { delimiter: ';;' } }, 'params.delimiter'],
      [{ job_type: 'EVENT_CSV_IMPORT', csv: 'event_code,customer_id\nx,y', params: { fail_on_error: 'yes' } }, 'fail_on_error'],
      [{ job_type: 'CUSTOMER_CSV_IMPORT', csv: 'name,currency,phone_number\nA,EUR,1' }, "unsupported columns 'phone_number'"],
      [{ job_type: 'CUSTOMER_CSV_IMPORT', csv: 'name\nA' }, "csv header must have a 'currency' column"],
    ];
    for (const [body, expected] of cases) {
      const res = await createJob(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining(expected) });
    }
  });

  it('refuses a file over 10 MB naming csv', async () => {
    const row = `imp_calls,acme,${'x'.repeat(1000)}\n`;
    const csv = `event_code,customer_alias,note\n${row.repeat(Math.ceil((10 * 1024 * 1024) / row.length) + 1)}`;
    expect(Buffer.byteLength(csv)).toBeGreaterThan(10 * 1024 * 1024);
    const res = await createJob({ job_type: 'EVENT_CSV_IMPORT', csv });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringMatching(/^csv must be at most 10485760 bytes/) });
  });
});

describe('customer CSV import', () => {
  it('creates valid rows through the customers service and reports the bad ones', async () => {
    const h = harness();
    const csv = [
      'name,alias,billing_email,currency,vat_number,is_tax_exempt,billing_address.line1,billing_address.city,billing_address.country',
      'Globex,globex,billing@globex.test,EUR,FR123,false,1 rue de la Paix,Paris,FR',
      'Initech,acme,ap@initech.test,USD,,,,,', // alias already used by an existing customer
      'Hooli,hooli,not-an-email,EUR,,,,,',
      'Umbrella,,,eur,,,,,',
      'Stark,stark,,USD,,TRUE,,,us',
      'Wayne,wayne,,GBP,,yes,,,',
      'Short,row',
      'Wonka,wonka,,CHF,,true,,,',
    ].join('\n');
    const res = await createJob({ job_type: 'CUSTOMER_CSV_IMPORT', file_name: 'customers.csv', csv });
    expect(res.statusCode, res.body).toBe(201);
    const done = await settle(res.json().id);
    expect(done).toMatchObject({ status: 'COMPLETED_WITH_ERRORS', total_items: 8, processed_items: 2, failed_items: 6, failure_count: 6 });
    const list = await failures(done.id);
    expect(list.total_count).toBe(6);
    expect(list.data.map((f) => [f.item_index, f.item_identifier, f.reason])).toEqual([
      [1, 'acme', "alias 'acme' is already used by another customer"],
      [2, 'hooli', "billing_email 'not-an-email' is not an e-mail address"],
      [3, 'Umbrella', "currency 'eur' must be a 3-letter ISO 4217 code such as EUR"],
      [4, 'stark', "billing_address.country 'us' must be an ISO 3166-1 alpha-2 code such as FR"],
      [5, 'wayne', "is_tax_exempt 'yes' must be true or false"],
      [6, null, 'row has 2 fields where the header has 9'],
    ]);

    const globex = await h.request('GET', '/api/v1/customers/globex');
    expect(globex.statusCode).toBe(200);
    expect(globex.json()).toMatchObject({
      name: 'Globex',
      alias: 'globex',
      billing_email: 'billing@globex.test',
      currency: 'EUR',
      vat_number: 'FR123',
      is_tax_exempt: false,
      billing_address: { line1: '1 rue de la Paix', city: 'Paris', country: 'FR' },
    });
    expect((await h.request('GET', '/api/v1/customers/wonka')).json()).toMatchObject({ currency: 'CHF', is_tax_exempt: true, billing_address: null });
    const events = await h.db.pool.query(`SELECT event_type FROM outbox_events WHERE tenant_id = $1 AND object_id = $2`, [h.tenant.id, globex.json().id]);
    expect(events.rows).toEqual([{ event_type: 'customer.created' }]);
    const created = await h.db.pool.query(`SELECT item_index, entity_id FROM batch_job_entities WHERE batch_job_id = $1 ORDER BY item_index`, [done.id]);
    expect(created.rows.map((r) => r.item_index)).toEqual([0, 7]);
    expect(created.rows[0].entity_id).toBe(globex.json().id);
  });

  it('skips rows created by an earlier attempt when a chunk is retried', async () => {
    const h = harness();
    const res = await createJob({ job_type: 'CUSTOMER_CSV_IMPORT', csv: 'name,alias,currency\nRetry One,retry-1,EUR\nRetry Two,retry-2,EUR' });
    const done = await settle(res.json().id);
    expect(done).toMatchObject({ status: 'COMPLETED', processed_items: 2, failed_items: 0 });
    // replay the chunk as a crashed first attempt would leave it: nothing is created twice
    const chunk = (await h.db.pool.query(`UPDATE batch_job_chunks SET status = 'PROCESSING' WHERE batch_job_id = $1 RETURNING id`, [done.id])).rows[0];
    await h.service.tasks['batch-jobs.process-chunk']!({ tenant_id: h.tenant.id, chunk_id: chunk.id });
    const after = (await h.request('GET', `/api/v1/batch-jobs/${done.id}`)).json();
    expect(after).toMatchObject({ status: 'COMPLETED', processed_items: 2, failed_items: 0, failure_count: 0 });
    const count = await h.db.pool.query(`SELECT count(*)::int AS n FROM customers WHERE tenant_id = $1 AND alias LIKE 'retry-%'`, [h.tenant.id]);
    expect(count.rows[0].n).toBe(2);
  });

  it('fails the job when no row could be imported', async () => {
    const res = await createJob({ job_type: 'CUSTOMER_CSV_IMPORT', csv: 'name,currency\nNobody,euro' });
    const done = await settle(res.json().id);
    expect(done).toMatchObject({ status: 'FAILED', processed_items: 0, failed_items: 1 });
  });
});

describe('read API', () => {
  it('lists newest first with job_type and status filters and paging', async () => {
    const h = harness();
    const all = await h.request('GET', '/api/v1/batch-jobs?per_page=100');
    expect(all.statusCode, all.body).toBe(200);
    const jobs = all.json().data as { id: string; job_type: string; status: string; created_at: string }[];
    expect(jobs.length).toBeGreaterThanOrEqual(7);
    expect(all.json().pagination_meta).toEqual({ page: 0, per_page: 100, total_items: jobs.length, total_pages: 1 });
    expect(Object.keys(jobs[0]!).sort()).toEqual(['completed_at', 'created_at', 'created_by', 'failed_items', 'id', 'input_file_name', 'job_type', 'matched_items', 'processed_items', 'status', 'total_items']);
    const ids = jobs.map((j) => j.id);
    expect([...ids].sort().reverse()).toEqual(ids);

    const customers = (await h.request('GET', '/api/v1/batch-jobs?job_type=CUSTOMER_CSV_IMPORT&per_page=100')).json().data as typeof jobs;
    expect(customers.map((j) => j.id)).toEqual(jobs.filter((j) => j.job_type === 'CUSTOMER_CSV_IMPORT').map((j) => j.id));
    const some = (await h.request('GET', '/api/v1/batch-jobs?status=FAILED&status=COMPLETED_WITH_ERRORS&per_page=100')).json().data as typeof jobs;
    expect(some.map((j) => j.id)).toEqual(jobs.filter((j) => j.status === 'FAILED' || j.status === 'COMPLETED_WITH_ERRORS').map((j) => j.id));
    expect(some.length).toBe(4);
    const second = (await h.request('GET', '/api/v1/batch-jobs?per_page=2&page=1')).json();
    expect(second.data.map((j: { id: string }) => j.id)).toEqual(ids.slice(2, 4));

    const bad = await h.request('GET', '/api/v1/batch-jobs?status=DONE');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('status') });
    const badLimit = await h.request('GET', `/api/v1/batch-jobs/${ids[0]}/failures?limit=101`);
    expect(badLimit.statusCode).toBe(400);
    expect(badLimit.json().message).toContain('limit');
  });

  it("answers 404 for another tenant's job and for a missing one", async () => {
    const h = harness();
    const mine = await createJob({ job_type: 'CUSTOMER_CSV_IMPORT', csv: 'name,currency\nIsolated,EUR' });
    expect(mine.statusCode).toBe(201);
    const id = mine.json().id;
    for (const url of [`/api/v1/batch-jobs/${id}`, `/api/v1/batch-jobs/${id}/failures`]) {
      const foreign = await h.request('GET', url, { key: h.other.apiKey });
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json()).toEqual({ code: 'NOT_FOUND', message: 'batch job not found' });
    }
    expect((await h.request('GET', '/api/v1/batch-jobs/bjob_00000000000000000000000000')).statusCode).toBe(404);
    expect((await h.request('GET', '/api/v1/batch-jobs', { key: h.other.apiKey })).json().data).toEqual([]);
    // the same file is a new job for another tenant, and its customers stay there
    const theirs = await createJob({ job_type: 'CUSTOMER_CSV_IMPORT', csv: 'name,currency\nIsolated,EUR' }, h.other.apiKey);
    expect(theirs.statusCode).toBe(201);
    expect(theirs.json().id).not.toBe(id);
    expect((await settle(theirs.json().id, h.other.apiKey)).status).toBe('COMPLETED');
    await settle(id);
    const mineCount = await h.db.pool.query(`SELECT tenant_id, count(*)::int AS n FROM customers WHERE name = 'Isolated' GROUP BY tenant_id ORDER BY tenant_id`);
    expect(mineCount.rows.map((r) => r.n)).toEqual([1, 1]);
    expect((await h.request('GET', '/api/v1/batch-jobs/x', { key: null })).statusCode).toBe(401);
  });
});
