import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import type { DatasetName } from './datasets.js';
import type { ExportFormat } from './formats.js';

export type Schedule = 'HOURLY' | 'DAILY';
export type RunStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED';
export type RunTrigger = 'MANUAL' | 'SCHEDULED';

export interface ExportConfigRow {
  enabled: boolean;
  schedule: Schedule;
  format: ExportFormat;
  destination_type: 'FOLDER' | 'S3';
  folder_path: string | null;
  s3_bucket: string | null;
  s3_prefix: string;
  s3_region: string | null;
  s3_endpoint: string | null;
  s3_force_path_style: boolean;
  s3_access_key_id: string | null;
  s3_secret_access_key_sealed: string | null;
  s3_secret_access_key_hint: string | null;
  next_run_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A dataset's window as stored: ISO instants (after null: from the start). */
export interface StoredWindow {
  dataset: DatasetName;
  after: string | null;
  up_to: string;
}

export interface ExportFile {
  dataset: DatasetName;
  /** Path on the server or s3://bucket/key. */
  location: string;
  row_count: number;
  size_bytes: number;
}

export interface ExportRunRow {
  id: string;
  status: RunStatus;
  trigger: RunTrigger;
  format: ExportFormat;
  windows: StoredWindow[];
  destination: Record<string, unknown> | null;
  files: ExportFile[];
  attempts: number;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

const CONFIG_COLUMNS = `enabled, schedule, format, destination_type, folder_path, s3_bucket, s3_prefix, s3_region, s3_endpoint, s3_force_path_style,
  s3_access_key_id, s3_secret_access_key_sealed, s3_secret_access_key_hint, next_run_at, created_at, updated_at`;

export async function findConfig(db: Queryable, tenantId: string, lock = false): Promise<ExportConfigRow | undefined> {
  return scoped(db, tenantId).one<ExportConfigRow>(`SELECT ${CONFIG_COLUMNS} FROM export_configs WHERE tenant_id = $1${lock ? ' FOR UPDATE' : ''}`);
}

export async function upsertConfig(db: Queryable, tenantId: string, row: ExportConfigRow): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO export_configs (tenant_id, ${CONFIG_COLUMNS.replace(/\s+/g, ' ')})
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
     ON CONFLICT (tenant_id) DO UPDATE SET enabled = $2, schedule = $3, format = $4, destination_type = $5, folder_path = $6, s3_bucket = $7,
       s3_prefix = $8, s3_region = $9, s3_endpoint = $10, s3_force_path_style = $11, s3_access_key_id = $12, s3_secret_access_key_sealed = $13,
       s3_secret_access_key_hint = $14, next_run_at = $15, updated_at = $17`,
    [row.enabled, row.schedule, row.format, row.destination_type, row.folder_path, row.s3_bucket, row.s3_prefix, row.s3_region, row.s3_endpoint,
      row.s3_force_path_style, row.s3_access_key_id, row.s3_secret_access_key_sealed, row.s3_secret_access_key_hint, row.next_run_at, row.created_at, row.updated_at],
  );
}

export async function deleteConfig(db: Queryable, tenantId: string): Promise<boolean> {
  return (await scoped(db, tenantId).query(`DELETE FROM export_configs WHERE tenant_id = $1 RETURNING tenant_id`)).length > 0;
}

export async function setNextRunAt(db: Queryable, tenantId: string, at: Date | null): Promise<void> {
  await scoped(db, tenantId).query(`UPDATE export_configs SET next_run_at = $2 WHERE tenant_id = $1`, [at]);
}

/**
 * Tenants whose scheduled export is due at `now`, every tenant at once: the periodic sweep looks
 * for work everywhere, then acts tenant by tenant through the scoped statements.
 */
export async function dueTenants(db: Queryable, now: Date, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ tenant_id: string }>(
    `SELECT tenant_id FROM export_configs WHERE enabled AND next_run_at <= $1 ORDER BY next_run_at LIMIT $2`,
    [now, limit],
  );
  return rows.map((r) => r.tenant_id);
}

const RUN_COLUMNS = 'id, status, trigger, format, windows, destination, files, attempts, error, created_at, started_at, completed_at';

export async function insertRun(db: Queryable, tenantId: string, run: ExportRunRow): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO export_runs (tenant_id, ${RUN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [run.id, run.status, run.trigger, run.format, JSON.stringify(run.windows), run.destination && JSON.stringify(run.destination), JSON.stringify(run.files),
      run.attempts, run.error, run.created_at, run.started_at, run.completed_at],
  );
}

export async function findRun(db: Queryable, tenantId: string, id: string, lock = false): Promise<ExportRunRow | undefined> {
  return scoped(db, tenantId).one<ExportRunRow>(`SELECT ${RUN_COLUMNS} FROM export_runs WHERE tenant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [id]);
}

/** The tenant's unfinished run (RUNNING or FAILED), locked; there is at most one. */
export async function findOpenRun(db: Queryable, tenantId: string): Promise<ExportRunRow | undefined> {
  return scoped(db, tenantId).one<ExportRunRow>(`SELECT ${RUN_COLUMNS} FROM export_runs WHERE tenant_id = $1 AND status IN ('RUNNING', 'FAILED') FOR UPDATE`);
}

export async function updateRun(db: Queryable, tenantId: string, run: ExportRunRow): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE export_runs SET status = $3, destination = $4, files = $5, attempts = $6, error = $7, started_at = $8, completed_at = $9 WHERE tenant_id = $1 AND id = $2`,
    [run.id, run.status, run.destination && JSON.stringify(run.destination), JSON.stringify(run.files), run.attempts, run.error, run.started_at, run.completed_at],
  );
}

export async function listRuns(db: Queryable, tenantId: string, status: RunStatus | undefined, page: PageRequest): Promise<{ rows: ExportRunRow[]; total: number }> {
  const where = status ? 'tenant_id = $1 AND status = $2' : 'tenant_id = $1';
  return scoped(db, tenantId).page<ExportRunRow>({ columns: RUN_COLUMNS, from: 'export_runs', where, orderBy: 'created_at DESC, id DESC' }, status ? [status] : [], page);
}

/** Each dataset's watermark: how far succeeded runs have exported it. */
export async function watermarks(db: Queryable, tenantId: string): Promise<Map<DatasetName, Date>> {
  const rows = await scoped(db, tenantId).query<{ dataset: DatasetName; exported_up_to: Date }>(`SELECT dataset, exported_up_to FROM export_watermarks WHERE tenant_id = $1`);
  return new Map(rows.map((r) => [r.dataset, r.exported_up_to]));
}

export async function advanceWatermark(db: Queryable, tenantId: string, dataset: DatasetName, upTo: Date, runId: string): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO export_watermarks (tenant_id, dataset, exported_up_to, run_id) VALUES ($1, $2, $3, $4)
     ON CONFLICT (tenant_id, dataset) DO UPDATE SET exported_up_to = $3, run_id = $4`,
    [dataset, upTo, runId],
  );
}
