import { Type } from 'typebox';
import { iso, isoOrNull, Nullable } from '../../http/schemas.js';
import { CREATABLE_JOB_TYPES } from './create-service.js';
import { JOB_STATUSES, JOB_TYPES, type BatchJobRow, type FailureRow } from './repository.js';

export const BatchJobType = Type.Enum(JOB_TYPES);
export const BatchJobStatus = Type.Enum(JOB_STATUSES);

const jobFields = {
  id: Type.String({ description: 'Batch job ID (bjob_...)' }),
  job_type: BatchJobType,
  status: BatchJobStatus,
  input_file_name: Nullable(Type.String()),
  total_items: Nullable(Type.Integer({ description: 'Data rows in the file' })),
  processed_items: Type.Integer({ description: 'Rows imported (an event already stored counts here: it was not stored twice)' }),
  failed_items: Type.Integer({ description: 'Rows not imported' }),
  matched_items: Nullable(Type.Integer({ description: 'BANK_PAYMENT_CSV_IMPORT: rows that recorded a payment on an invoice (processed rows not matched were recorded before); null for other job types' })),
  created_by: Type.String({ description: 'The API key or OAuth grant that created the job' }),
  created_at: Type.String({ format: 'date-time' }),
  completed_at: Nullable(Type.String({ format: 'date-time' })),
};

export const BatchJob = Type.Object(jobFields);

export const BatchJobDetail = Type.Object({
  ...jobFields,
  failure_count: Type.Integer({ description: 'Rows listed by GET /api/v1/batch-jobs/{batch_job_id}/failures' }),
  has_error_csv: Type.Boolean(),
  error_csv_url: Nullable(Type.String()),
  input_file_url: Nullable(Type.String()),
});

export const BatchJobFailure = Type.Object({
  id: Type.String({ format: 'uuid' }),
  chunk_id: Type.String({ description: 'Chunk ID (bjch_...)' }),
  item_index: Type.Integer({ description: 'Data row of the file, 0-based (the header is not counted)' }),
  item_identifier: Nullable(Type.String({ description: 'event_id of an event row; alias (or name) of a customer row; bank_line_id (or reference) of a bank line' })),
  reason: Type.String(),
});

export const CreateBatchJobRequest = Type.Object({
  job_type: Type.Enum(CREATABLE_JOB_TYPES),
  file_name: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  csv: Type.String({ description: 'The file content as text (UTF-8), at most 10 MB' }),
  params: Type.Optional(Nullable(Type.Object({
    delimiter: Type.Optional(Type.String({ description: 'Field separator, one character (default ",")' })),
    fail_on_error: Type.Optional(Type.Boolean({ description: 'Events: a bad row fails its whole chunk (500 rows) instead of being skipped' })),
  }, { additionalProperties: false }))),
  force_duplicate: Type.Optional(Type.Boolean({ description: 'Import a file that an earlier job already imported' })),
}, { additionalProperties: false });

export function jobToWire(row: BatchJobRow) {
  return {
    id: row.id,
    job_type: row.job_type,
    status: row.status,
    input_file_name: row.input_file_name,
    total_items: row.total_items,
    processed_items: row.processed_items,
    failed_items: row.failed_items,
    matched_items: row.job_type === 'BANK_PAYMENT_CSV_IMPORT' ? row.matched_items : null,
    created_by: row.created_by,
    created_at: iso(row.created_at),
    completed_at: isoOrNull(row.completed_at),
  };
}

/** The error CSV and the stored input file of the reference are not offered (docs/batch-jobs.md). */
export function jobDetailToWire(row: BatchJobRow, failureCount: number) {
  return { ...jobToWire(row), failure_count: failureCount, has_error_csv: false, error_csv_url: null, input_file_url: null };
}

export function failureToWire(row: FailureRow) {
  return { id: row.id, chunk_id: row.chunk_id, item_index: row.item_index, item_identifier: row.item_identifier, reason: row.reason };
}
