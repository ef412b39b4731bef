// Examples of the OpenAPI document: a daily Parquet export to S3 and one run of it.
import type { Static } from 'typebox';
import type { ExportConfigBody, ExportConfigRequest, ExportRun } from './schemas.js';

export const RUN_ID = 'exp_01KKRNW4G0AXNW3GT1SQ0DQK2M';

export const putExample: Static<typeof ExportConfigRequest> = {
  schedule: 'DAILY',
  format: 'PARQUET',
  destination: {
    type: 'S3', bucket: 'acme-billing-exports', prefix: 'billing/', region: 'eu-west-3',
    access_key_id: 'AKIAIOSFODNN7EXAMPLE', secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  },
};

export const configExample: Static<typeof ExportConfigBody> = {
  enabled: true,
  schedule: 'DAILY',
  format: 'PARQUET',
  destination: {
    type: 'S3', bucket: 'acme-billing-exports', prefix: 'billing/', region: 'eu-west-3', endpoint: null, force_path_style: false,
    access_key_id: 'AKIAIOSFODNN7EXAMPLE', secret_access_key_hint: 'wJalrXUt...EKEY',
  },
  next_run_at: '2026-03-16T00:00:00.000Z',
  watermarks: [
    { dataset: 'invoices', exported_up_to: '2026-03-15T00:00:00.000Z' },
    { dataset: 'invoice_lines', exported_up_to: '2026-03-15T00:00:00.000Z' },
    { dataset: 'credit_notes', exported_up_to: '2026-03-15T00:00:00.000Z' },
    { dataset: 'payments', exported_up_to: '2026-03-15T00:00:00.000Z' },
    { dataset: 'usage_daily', exported_up_to: '2026-03-14T00:00:00.000Z' },
  ],
  created_at: '2026-03-01T09:12:40.118Z',
  updated_at: '2026-03-01T09:12:40.118Z',
};

const windows: Static<typeof ExportRun>['windows'] = [
  { dataset: 'invoices', after: '2026-03-14T23:59:00.000Z', up_to: '2026-03-15T23:59:00.000Z' },
  { dataset: 'invoice_lines', after: '2026-03-14T23:59:00.000Z', up_to: '2026-03-15T23:59:00.000Z' },
  { dataset: 'credit_notes', after: '2026-03-14T23:59:00.000Z', up_to: '2026-03-15T23:59:00.000Z' },
  { dataset: 'payments', after: '2026-03-14T23:59:00.000Z', up_to: '2026-03-15T23:59:00.000Z' },
  { dataset: 'usage_daily', after: '2026-03-14T00:00:00.000Z', up_to: '2026-03-15T00:00:00.000Z' },
];

export const runningExample: Static<typeof ExportRun> = {
  id: RUN_ID, status: 'RUNNING', trigger: 'MANUAL', format: 'PARQUET',
  destination: { type: 'S3', bucket: 'acme-billing-exports', prefix: 'billing/', region: 'eu-west-3', endpoint: null },
  windows, files: [], attempts: 0, error: null, created_at: '2026-03-16T00:00:00.412Z', started_at: null, completed_at: null,
};

export const succeededExample: Static<typeof ExportRun> = {
  ...runningExample,
  status: 'SUCCEEDED',
  files: [
    { dataset: 'invoices', location: `s3://acme-billing-exports/billing/invoices/date=2026-03-15/${RUN_ID}.parquet`, row_count: 42, size_bytes: 9120 },
    { dataset: 'invoice_lines', location: `s3://acme-billing-exports/billing/invoice_lines/date=2026-03-15/${RUN_ID}.parquet`, row_count: 97, size_bytes: 11877 },
    { dataset: 'credit_notes', location: `s3://acme-billing-exports/billing/credit_notes/date=2026-03-15/${RUN_ID}.parquet`, row_count: 1, size_bytes: 3010 },
    { dataset: 'payments', location: `s3://acme-billing-exports/billing/payments/date=2026-03-15/${RUN_ID}.parquet`, row_count: 30, size_bytes: 2968 },
    { dataset: 'usage_daily', location: `s3://acme-billing-exports/billing/usage_daily/date=2026-03-15/${RUN_ID}.parquet`, row_count: 380, size_bytes: 8133 },
  ],
  attempts: 1,
  started_at: '2026-03-16T00:00:01.020Z',
  completed_at: '2026-03-16T00:00:02.733Z',
};
