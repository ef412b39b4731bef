// Data export end to end (docs/export.md): a folder export in Parquet then CSV, a run crashed
// between its file writes and its commit, the local S3 server, and the schedule. Every file is
// read back and reconciled with the API: row counts and money totals.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parquetReadObjects } from 'hyparquet';
import { parse } from 'csv-parse/sync';
import { Dec } from '../../src/kernel/money.js';
import { MS_PER_HOUR } from '../../src/kernel/clock.js';
import { useHarness, type Harness } from '../harness/app.js';
import { startLocalS3, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, type LocalS3 } from '../harness/s3-server.js';
import { createCustomer, createDraft, outbox } from './invoices-support.js';

const root = mkdtempSync(join(tmpdir(), 'exports-'));
const harness = useHarness({ exportFolderRoot: root });
let s3: LocalS3;
let metricId: string;
let customerId: string;

beforeAll(async () => {
  s3 = await startLocalS3(['billing-exports']);
  const h = harness();
  const family = (await h.request('POST', '/api/v1/product_families', { body: { name: 'API' } })).json();
  const metric = await h.request('POST', '/api/v1/metrics', { body: { product_family_id: family.id, name: 'Bytes', code: 'exp_bytes', aggregation_type: 'SUM', aggregation_key: 'bytes' } });
  expect(metric.statusCode, metric.body).toBe(201);
  metricId = metric.json().id;
  customerId = (await createCustomer(h, { name: 'Export SAS' })).id;
});

afterAll(async () => {
  await s3?.close();
  rmSync(root, { recursive: true, force: true });
});

type Row = Record<string, unknown>;
interface RunFile { dataset: string; location: string; row_count: number; size_bytes: number }
interface Run { id: string; status: string; trigger: string; format: string; files: RunFile[]; attempts: number; error: string | null; windows: { dataset: string; after: string | null; up_to: string }[] }

async function readParquet(body: Buffer): Promise<Row[]> {
  return parquetReadObjects({ file: body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer });
}

/** The rows of each file of a run, by dataset (Parquet or CSV, from the folder or the local S3). */
async function rowsOf(run: Run): Promise<Record<string, Row[]>> {
  const out: Record<string, Row[]> = {};
  for (const file of run.files) {
    let body: Buffer;
    if (file.location.startsWith('s3://')) {
      const [bucket, ...key] = file.location.slice('s3://'.length).split('/');
      body = await s3.read(bucket!, key.join('/'));
    } else {
      body = readFileSync(file.location);
    }
    out[file.dataset] = run.format === 'PARQUET' ? await readParquet(body) : parse(body.toString('utf8'), { columns: true });
    expect(out[file.dataset], `${file.dataset} row_count`).toHaveLength(file.row_count);
  }
  return out;
}

const sum = (values: unknown[]) => values.reduce<Dec>((total, v) => total.plus(new Dec(String(v))), new Dec(0)).toFixed();

async function finalizedInvoice(h: Harness, customer: string, tenant = h.tenant) {
  const draft = await createDraft(h, customer, { tenantId: tenant.id });
  const res = await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`, { key: tenant.apiKey });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { id: string };
}

/** Starts a run, lets its job write it, and returns it as it ended. */
async function runExport(h: Harness, key = h.tenant.apiKey): Promise<Run> {
  const started = await h.request('POST', '/api/v1/exports/runs', { key });
  expect(started.statusCode, started.body).toBe(202);
  expect(started.json()).toMatchObject({ status: 'RUNNING', files: [] });
  await h.drainJobs();
  return (await h.request('GET', `/api/v1/exports/runs/${started.json().id}`, { key })).json();
}

interface ApiInvoice { id: string; status: string; total: string; amount_paid: string; line_items: { id: string; amount_total: string }[]; transactions: { id: string; amount: string }[] }

/** The tenant's invoices as the API lists them, drafts left out (they are not exported). */
async function apiInvoices(h: Harness, key = h.tenant.apiKey): Promise<ApiInvoice[]> {
  const res = await h.request('GET', '/api/v1/invoices?per_page=100', { key });
  expect(res.statusCode).toBe(200);
  return (res.json().data as ApiInvoice[]).filter((i) => i.status !== 'DRAFT');
}

const FOLDER_CONFIG = (path: string, format = 'PARQUET') => ({ schedule: 'DAILY', format, destination: { type: 'FOLDER', path } });

describe('data export', () => {
  it('refuses a configuration it cannot use, naming the field', async () => {
    const h = harness();
    expect((await h.request('GET', '/api/v1/exports/config')).statusCode).toBe(404);
    const cases: [unknown, string][] = [
      [FOLDER_CONFIG('/etc'), 'destination.path'],
      [FOLDER_CONFIG('relative/folder'), 'destination.path'],
      [{ ...FOLDER_CONFIG(join(root, 'acme')), schedule: 'WEEKLY' }, 'schedule'],
      [{ ...FOLDER_CONFIG(join(root, 'acme')), format: 'XLSX' }, 'format'],
      [{ schedule: 'DAILY', format: 'CSV', destination: { type: 'FTP' } }, 'destination.type'],
      [{ schedule: 'DAILY', format: 'CSV', destination: { type: 'S3', bucket: 'Bad_Bucket', region: 'eu-west-3', access_key_id: 'AK', secret_access_key: 'x' } }, 'destination.bucket'],
      [{ schedule: 'DAILY', format: 'CSV', destination: { type: 'S3', bucket: 'billing-exports', region: 'eu-west-3', access_key_id: 'AK' } }, 'destination.secret_access_key'],
      [{ schedule: 'DAILY', format: 'CSV', destination: { type: 'S3', bucket: 'billing-exports', region: 'eu-west-3', access_key_id: 'AK', secret_access_key: 'x', endpoint: 'ftp://x' } }, 'destination.endpoint'],
    ];
    for (const [body, field] of cases) {
      const res = await h.request('PUT', '/api/v1/exports/config', { body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().message).toContain(field);
    }
    // a production tenant may not send its exports to a loopback address
    const production = await h.request('PUT', '/api/v1/exports/config', {
      key: h.production.apiKey,
      body: { schedule: 'DAILY', format: 'CSV', destination: { type: 'S3', bucket: 'billing-exports', region: 'us-east-1', endpoint: s3.endpoint, access_key_id: 'AK', secret_access_key: 'x' } },
    });
    expect(production.statusCode).toBe(400);
    expect(production.json().message).toContain('destination.endpoint must not point to a private, loopback or link-local address');
    // nothing was stored, and a run needs a configuration
    expect((await h.request('GET', '/api/v1/exports/config')).statusCode).toBe(404);
    const run = await h.request('POST', '/api/v1/exports/runs');
    expect(run.statusCode).toBe(409);
    expect(run.json().message).toContain('PUT /api/v1/exports/config');
  });

  it('exports to a folder in Parquet, and the files reconcile with the API', async () => {
    const h = harness();
    const folder = join(root, 'acme');
    const put = await h.request('PUT', '/api/v1/exports/config', { body: FOLDER_CONFIG(folder) });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({ enabled: true, schedule: 'DAILY', format: 'PARQUET', destination: { type: 'FOLDER', path: folder }, next_run_at: '2026-03-16T00:00:00.000Z' });
    expect(put.json().watermarks.every((w: { exported_up_to: string | null }) => w.exported_up_to === null)).toBe(true);

    const paidPart = await finalizedInvoice(h, customerId);
    expect((await h.request('POST', `/api/v1/invoices/${paidPart.id}/mark-paid`, { body: { amount: '44.00' } })).statusCode).toBe(200);
    const paid = await finalizedInvoice(h, customerId);
    expect((await h.request('POST', `/api/v1/invoices/${paid.id}/mark-paid`, { body: {} })).statusCode).toBe(200);
    const credited = await finalizedInvoice(h, customerId);
    const note = (await h.request('POST', '/api/v1/credit-notes', { body: { invoice_id: credited.id, reason: 'Outage', credit_type: 'CREDIT_TO_BALANCE' } })).json();
    expect((await h.request('POST', `/api/v1/credit-notes/${note.id}/finalize`)).statusCode).toBe(200);
    await createDraft(h, customerId); // a draft is not exported
    const events = [
      { event_id: 'x1', code: 'exp_bytes', customer_id: customerId, timestamp: '2026-03-14T10:00:00Z', properties: { bytes: '5.5' } },
      { event_id: 'x2', code: 'exp_bytes', customer_id: customerId, timestamp: '2026-03-14T20:00:00Z', properties: { bytes: '7' } },
      // today: its day has not ended, so no run exports it yet
      { event_id: 'x3', code: 'exp_bytes', customer_id: customerId, timestamp: '2026-03-15T09:00:00Z', properties: { bytes: '100' } },
    ];
    expect((await h.request('POST', '/api/v1/events/ingest', { body: { events, allow_backfilling: true } })).statusCode).toBe(200);
    await h.drainJobs();
    h.clock.advance(2 * MS_PER_HOUR);

    const run = await runExport(h);
    expect(run).toMatchObject({ status: 'SUCCEEDED', trigger: 'MANUAL', format: 'PARQUET', attempts: 1, error: null });
    expect(run.files.map((f) => f.dataset)).toEqual(['invoices', 'invoice_lines', 'credit_notes', 'payments', 'usage_daily']);
    for (const file of run.files) expect(file.location).toBe(join(folder, file.dataset, 'date=2026-03-15', `${run.id}.parquet`));
    expect(run.windows.find((w) => w.dataset === 'invoices')).toEqual({ dataset: 'invoices', after: null, up_to: '2026-03-15T13:59:00.000Z' });
    expect(run.windows.find((w) => w.dataset === 'usage_daily')).toEqual({ dataset: 'usage_daily', after: null, up_to: '2026-03-15T00:00:00.000Z' });

    const rows = await rowsOf(run);
    const invoices = await apiInvoices(h);
    expect(invoices).toHaveLength(3);
    expect(rows.invoices!.map((r) => r.id).sort()).toEqual(invoices.map((i) => i.id).sort());
    expect(sum(rows.invoices!.map((r) => r.total))).toBe(sum(invoices.map((i) => i.total)));
    expect(sum(rows.invoices!.map((r) => r.amount_paid))).toBe(sum(invoices.map((i) => i.amount_paid)));
    const lines = invoices.flatMap((i) => i.line_items);
    expect(rows.invoice_lines!.map((r) => r.id).sort()).toEqual(lines.map((l) => l.id).sort());
    expect(sum(rows.invoice_lines!.map((r) => r.amount_total))).toBe(sum(lines.map((l) => l.amount_total)));
    const payments = invoices.flatMap((i) => i.transactions);
    expect(rows.payments!.map((r) => r.id).sort()).toEqual(payments.map((p) => p.id).sort());
    expect(sum(rows.payments!.map((r) => r.amount))).toBe(sum(payments.map((p) => p.amount)));
    expect(sum(rows.payments!.map((r) => r.amount))).toBe('188');
    const apiNote = (await h.request('GET', `/api/v1/credit-notes/${note.id}`)).json();
    expect(rows.credit_notes).toEqual([expect.objectContaining({ id: note.id, status: 'FINALIZED', total: apiNote.total, credit_note_number: apiNote.credit_note_number })]);
    // typed columns: instants are timestamps, counts are integers
    expect(rows.invoices![0]!.finalized_at).toBeInstanceOf(Date);
    const usage = (await h.request('GET', `/api/v1/usage/customer/${customerId}?start_date=2026-03-14&end_date=2026-03-15`)).json();
    const apiValue = usage.usage.find((u: { metric_id: string }) => u.metric_id === metricId).total_value;
    expect(rows.usage_daily).toEqual([{ day: '2026-03-14', customer_id: customerId, customer_ref: customerId, metric_id: metricId, metric_code: 'exp_bytes', aggregation: 'SUM', value: apiValue, event_count: 2n }]);
    expect(apiValue).toBe('12.5');

    expect((await outbox(h, run.id)).map((e) => e.event_type)).toEqual(['export.completed']);
    expect((await outbox(h, run.id))[0]!.payload).toMatchObject({ id: run.id, status: 'SUCCEEDED', files: run.files });
    const config = (await h.request('GET', '/api/v1/exports/config')).json();
    expect(config.watermarks).toContainEqual({ dataset: 'invoices', exported_up_to: '2026-03-15T13:59:00.000Z' });
    expect(config.watermarks).toContainEqual({ dataset: 'usage_daily', exported_up_to: '2026-03-15T00:00:00.000Z' });
  });

  it('exports only what changed since the watermarks, here in CSV', async () => {
    const h = harness();
    expect((await h.request('PUT', '/api/v1/exports/config', { body: FOLDER_CONFIG(join(root, 'acme'), 'CSV') })).statusCode).toBe(200);
    h.clock.advance(2 * 60_000);
    const unpaid = (await apiInvoices(h)).find((i) => i.amount_paid === '44.00')!;
    expect((await h.request('POST', `/api/v1/invoices/${unpaid.id}/mark-paid`, { body: {} })).statusCode).toBe(200);
    h.clock.advance(2 * 60_000);

    const run = await runExport(h);
    expect(run).toMatchObject({ status: 'SUCCEEDED', format: 'CSV' });
    expect(run.files[0]!.location).toMatch(/\.csv$/);
    const rows = await rowsOf(run);
    // the invoice paid since, with its new state, and its payment; nothing else changed
    expect(rows.invoices).toEqual([expect.objectContaining({ id: unpaid.id, payment_status: 'PAID', amount_paid: '144.00', total: '144.00' })]);
    expect(rows.payments).toEqual([expect.objectContaining({ invoice_id: unpaid.id, amount: '100.00', status: 'SETTLED' })]);
    expect(rows.invoice_lines).toEqual([]);
    expect(rows.credit_notes).toEqual([]);
    expect(rows.usage_daily).toEqual([]);
    expect(run.windows.find((w) => w.dataset === 'invoices')!.after).toBe('2026-03-15T13:59:00.000Z');
  });

  it('rewrites a run that crashed between its file writes and its commit under the same names: no duplicate rows', async () => {
    const h = harness();
    const before = await finalizedInvoice(h, customerId);
    await h.drainJobs();
    h.clock.advance(2 * 60_000);
    const started = (await h.request('POST', '/api/v1/exports/runs')).json() as Run;
    const crash = h.service.exports.runs.execute(h.tenant.id, started.id, { afterFilesWritten: async () => { throw new Error('simulated crash after the files were written'); } });
    await expect(crash).rejects.toThrow('simulated crash');
    // the files are there, the run and the watermarks are not moved
    const fileOf = (dataset: string) => join(root, 'acme', dataset, 'date=2026-03-15', `${started.id}.csv`);
    expect(parse(readFileSync(fileOf('invoices'), 'utf8'), { columns: true })).toHaveLength(1);
    expect((await h.request('GET', `/api/v1/exports/runs/${started.id}`)).json()).toMatchObject({ status: 'RUNNING', files: [] });
    expect((await h.request('GET', '/api/v1/exports/config')).json().watermarks).toContainEqual({ dataset: 'invoices', exported_up_to: '2026-03-15T14:03:00.000Z' });

    // an invoice finalized after the run's window: not in this run, in the next
    const after = await finalizedInvoice(h, customerId);
    await h.drainJobs(); // the run's job runs it again: same windows, same names
    const run = (await h.request('GET', `/api/v1/exports/runs/${started.id}`)).json() as Run;
    expect(run).toMatchObject({ status: 'SUCCEEDED', attempts: 1 });
    expect(run.files.map((f) => f.location)).toEqual(run.files.map((f) => fileOf(f.dataset)));
    const rows = await rowsOf(run);
    expect(rows.invoices!.map((r) => r.id)).toEqual([before.id]);
    expect(readdirSync(join(root, 'acme', 'invoices', 'date=2026-03-15')).filter((name) => name.startsWith(started.id))).toEqual([`${started.id}.csv`]);

    h.clock.advance(2 * 60_000);
    const next = await runExport(h);
    expect((await rowsOf(next)).invoices!.map((r) => r.id)).toEqual([after.id]);

    // over every run so far, each invoice line and payment is in exactly one file, and all of them are
    const all = (await h.request('GET', '/api/v1/exports/runs?per_page=100')).json().data as Run[];
    const lineIds: unknown[] = [];
    const paymentIds: unknown[] = [];
    for (const r of all) {
      const fileRows = await rowsOf(r);
      lineIds.push(...fileRows.invoice_lines!.map((row) => row.id));
      paymentIds.push(...fileRows.payments!.map((row) => row.id));
    }
    const invoices = await apiInvoices(h);
    expect(lineIds).toHaveLength(new Set(lineIds).size);
    expect(lineIds.sort()).toEqual(invoices.flatMap((i) => i.line_items.map((l) => l.id)).sort());
    expect(paymentIds.sort()).toEqual(invoices.flatMap((i) => i.transactions.map((t) => t.id)).sort());
  });

  it('exports to S3-compatible storage (local server), keeps the secret sealed, and retries a failed run under the same names', async () => {
    const h = harness();
    const key = h.other.apiKey;
    const customer = await createCustomer(h, { name: 'Other GmbH' }, key);
    const invoice = await finalizedInvoice(h, customer.id, h.other);
    expect((await h.request('POST', `/api/v1/invoices/${invoice.id}/mark-paid`, { key, body: { amount: '100.00' } })).statusCode).toBe(200);
    await finalizedInvoice(h, customer.id, h.other);
    await h.drainJobs();
    h.clock.advance(2 * 60_000);

    const destination = { type: 'S3', bucket: 'missing-bucket', prefix: 'billing', region: 'us-east-1', endpoint: s3.endpoint, access_key_id: S3_ACCESS_KEY_ID, secret_access_key: S3_SECRET_ACCESS_KEY };
    const put = await h.request('PUT', '/api/v1/exports/config', { key, body: { schedule: 'HOURLY', format: 'PARQUET', destination } });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().destination).toEqual({ type: 'S3', bucket: 'missing-bucket', prefix: 'billing/', region: 'us-east-1', endpoint: s3.endpoint, force_path_style: true, access_key_id: S3_ACCESS_KEY_ID, secret_access_key_hint: '...-key' });
    expect(put.body).not.toContain(`"${S3_SECRET_ACCESS_KEY}"`);
    const stored = await h.db.pool.query('SELECT s3_secret_access_key_sealed AS sealed FROM export_configs WHERE tenant_id = $1', [h.other.id]);
    expect(stored.rows[0].sealed).toMatch(/^v1\./);

    // the bucket does not exist: the run fails and says why
    const failed = await runExport(h, key);
    expect(failed).toMatchObject({ status: 'FAILED', attempts: 1, files: [] });
    expect(failed.error).toContain('NoSuchBucket');
    // fixed: the same key id without the secret keeps the stored one; the next start retries the same run
    const fixed = await h.request('PUT', '/api/v1/exports/config', { key, body: { schedule: 'HOURLY', format: 'PARQUET', destination: { ...destination, bucket: 'billing-exports', secret_access_key: undefined } } });
    expect(fixed.statusCode, fixed.body).toBe(200);
    const run = await runExport(h, key);
    expect(run).toMatchObject({ id: failed.id, status: 'SUCCEEDED', attempts: 2, error: null });
    expect(run.windows).toEqual(failed.windows);
    expect(await s3.keys('billing-exports', 'billing/')).toEqual(
      ['credit_notes', 'invoice_lines', 'invoices', 'payments', 'usage_daily'].map((d) => `billing/${d}/date=2026-03-15/${run.id}.parquet`),
    );
    expect(run.files.find((f) => f.dataset === 'invoices')!.location).toBe(`s3://billing-exports/billing/invoices/date=2026-03-15/${run.id}.parquet`);

    const rows = await rowsOf(run);
    const invoices = await apiInvoices(h, key);
    expect(rows.invoices!.map((r) => r.id).sort()).toEqual(invoices.map((i) => i.id).sort());
    expect(sum(rows.invoices!.map((r) => r.total))).toBe(sum(invoices.map((i) => i.total)));
    expect(sum(rows.invoice_lines!.map((r) => r.amount_total))).toBe(sum(invoices.flatMap((i) => i.line_items.map((l) => l.amount_total))));
    expect(rows.payments!.map((r) => r.amount)).toEqual(['100.00']);
    // the other tenant's (org A's) invoices are not in org B's files
    expect(rows.invoices!.every((r) => r.customer_id === customer.id)).toBe(true);
  });

  it('starts runs on its schedule, one at a time', async () => {
    const h = harness();
    const put = await h.request('PUT', '/api/v1/exports/config', { body: { ...FOLDER_CONFIG(join(root, 'acme')), schedule: 'HOURLY' } });
    expect(put.json().next_run_at).toBe('2026-03-15T15:00:00.000Z');
    await h.service.tasks['exports.sweep']!({ once: true });
    expect((await h.request('GET', '/api/v1/exports/runs?status=RUNNING')).json().data).toEqual([]);

    h.clock.set('2026-03-15T15:00:30.000Z');
    await h.service.tasks['exports.sweep']!({ once: true });
    const running = (await h.request('GET', '/api/v1/exports/runs?status=RUNNING')).json().data as Run[];
    expect(running).toEqual([expect.objectContaining({ trigger: 'SCHEDULED', format: 'PARQUET' })]);
    // one run at a time: a manual start waits for it
    const second = await h.request('POST', '/api/v1/exports/runs');
    expect(second.statusCode).toBe(409);
    expect(second.json().message).toContain(running[0]!.id);
    expect((await h.request('GET', '/api/v1/exports/config')).json().next_run_at).toBe('2026-03-15T16:00:00.000Z');
    await h.drainJobs();
    expect((await h.request('GET', `/api/v1/exports/runs/${running[0]!.id}`)).json()).toMatchObject({ status: 'SUCCEEDED' });
    expect((await h.request('GET', '/api/v1/exports/runs/exp_01KKRNW4G0AXNW3GT1SQ0DQK2M')).statusCode).toBe(404);
    // another tenant does not see this tenant's runs
    expect((await h.request('GET', `/api/v1/exports/runs/${running[0]!.id}`, { key: h.other.apiKey })).statusCode).toBe(404);
  });
});
