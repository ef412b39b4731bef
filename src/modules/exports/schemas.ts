import { Type } from 'typebox';
import { iso, isoOrNull, Nullable } from '../../http/schemas.js';
import type { ExportConfig } from './config-service.js';
import { DATASETS } from './datasets.js';
import type { ExportRunRow } from './repository.js';

const DateTime = (description: string) => Type.String({ format: 'date-time', description });
const Dataset = Type.Enum(DATASETS, { description: 'invoices, invoice_lines, credit_notes, payments or usage_daily (docs/export.md lists their columns)' });

const DestinationRequest = Type.Object({
  type: Type.String({ description: 'FOLDER (a folder on the server, inside EXPORT_FOLDER_ROOT) or S3 (an S3-compatible bucket)', examples: ['S3'] }),
  path: Type.Optional(Type.String({ maxLength: 4096, description: 'FOLDER: absolute path inside the export folder root; created if missing' })),
  bucket: Type.Optional(Type.String({ maxLength: 63, description: 'S3: bucket name' })),
  prefix: Type.Optional(Type.String({ maxLength: 512, description: 'S3: key prefix of every file, e.g. "billing/"; a missing trailing slash is added' })),
  region: Type.Optional(Type.String({ maxLength: 64, description: 'S3: region, e.g. "eu-west-3"' })),
  endpoint: Type.Optional(Nullable(Type.String({ maxLength: 2048, description: 'S3: endpoint URL of an S3-compatible store (MinIO, R2...); absent for AWS. Production tenants must name a public address' }))),
  force_path_style: Type.Optional(Type.Boolean({ description: 'S3: bucket in the path instead of the host name; default true with an endpoint, false without' })),
  access_key_id: Type.Optional(Type.String({ maxLength: 128, description: 'S3: access key id' })),
  secret_access_key: Type.Optional(Type.String({ maxLength: 256, description: 'S3: secret access key; stored sealed with the service secret and never shown again. May be left out when the access_key_id is unchanged' })),
}, { additionalProperties: false });

export const ExportConfigRequest = Type.Object({
  enabled: Type.Optional(Type.Boolean({ description: 'Scheduled runs on (default true); manual runs work either way' })),
  schedule: Type.String({ description: 'HOURLY (at each full UTC hour) or DAILY (at UTC midnight)', examples: ['DAILY'] }),
  format: Type.String({ description: 'PARQUET or CSV', examples: ['PARQUET'] }),
  destination: DestinationRequest,
}, { additionalProperties: false });

const Destination = Type.Object({
  type: Type.String({ description: 'FOLDER or S3' }),
  path: Type.Optional(Type.String()),
  bucket: Type.Optional(Type.String()),
  prefix: Type.Optional(Type.String()),
  region: Type.Optional(Type.String()),
  endpoint: Type.Optional(Nullable(Type.String())),
  force_path_style: Type.Optional(Type.Boolean()),
  access_key_id: Type.Optional(Type.String()),
  secret_access_key_hint: Type.Optional(Type.String({ description: 'The start and the last 4 characters of the stored secret key' })),
});

export const ExportConfigBody = Type.Object({
  enabled: Type.Boolean(),
  schedule: Type.String({ description: 'HOURLY or DAILY' }),
  format: Type.String({ description: 'PARQUET or CSV' }),
  destination: Destination,
  next_run_at: Nullable(DateTime('When the schedule next starts a run (null while disabled)')),
  watermarks: Type.Array(Type.Object({
    dataset: Dataset,
    exported_up_to: Nullable(DateTime('Everything up to this instant is in the files of succeeded runs; null before the first')),
  })),
  created_at: DateTime('When the configuration was first created'),
  updated_at: DateTime('Last change'),
});

const Window = Type.Object({
  dataset: Dataset,
  after: Nullable(DateTime('The window starts after this instant (usage_daily: at this UTC midnight); null: from the start')),
  up_to: DateTime('The window ends at this instant, included (usage_daily: at this UTC midnight, excluded)'),
});

const File = Type.Object({
  dataset: Dataset,
  location: Type.String({ description: 'Absolute path on the server, or s3://bucket/key' }),
  row_count: Type.Integer({ minimum: 0 }),
  size_bytes: Type.Integer({ minimum: 0 }),
});

export const ExportRun = Type.Object({
  id: Type.String({ description: 'Export run ID (exp_...)' }),
  status: Type.String({ description: 'RUNNING, SUCCEEDED, or FAILED (retried with the same windows and file names at the next tick or start)' }),
  trigger: Type.String({ description: 'MANUAL (POST /api/v1/exports/runs) or SCHEDULED' }),
  format: Type.String({ description: 'PARQUET or CSV, fixed when the run was created' }),
  destination: Nullable(Type.Object({}, { additionalProperties: true, description: 'Where the files went (no secret)' })),
  windows: Type.Array(Window, { description: 'What each dataset\'s file holds, fixed when the run was created' }),
  files: Type.Array(File, { description: 'One file per dataset once SUCCEEDED, with its row count' }),
  attempts: Type.Integer({ minimum: 0 }),
  error: Nullable(Type.String({ description: 'Why the last attempt failed' })),
  created_at: DateTime('When the run was created'),
  started_at: Nullable(DateTime('When its first attempt started')),
  completed_at: Nullable(DateTime('When it succeeded')),
});

export function runToWire(run: ExportRunRow) {
  return {
    id: run.id,
    status: run.status,
    trigger: run.trigger,
    format: run.format,
    destination: run.destination,
    windows: run.windows,
    files: run.files,
    attempts: run.attempts,
    error: run.error,
    created_at: iso(run.created_at),
    started_at: isoOrNull(run.started_at),
    completed_at: isoOrNull(run.completed_at),
  };
}

export function configToWire({ row, watermarks }: ExportConfig) {
  const destination = row.destination_type === 'FOLDER'
    ? { type: 'FOLDER', path: row.folder_path! }
    : {
      type: 'S3', bucket: row.s3_bucket!, prefix: row.s3_prefix, region: row.s3_region!, endpoint: row.s3_endpoint, force_path_style: row.s3_force_path_style,
      access_key_id: row.s3_access_key_id!, secret_access_key_hint: row.s3_secret_access_key_hint ?? '',
    };
  return {
    enabled: row.enabled,
    schedule: row.schedule,
    format: row.format,
    destination,
    next_run_at: isoOrNull(row.next_run_at),
    watermarks: DATASETS.map((dataset) => ({ dataset, exported_up_to: isoOrNull(watermarks.get(dataset)) })),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
