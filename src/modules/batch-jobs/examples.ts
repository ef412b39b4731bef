// Examples of the OpenAPI document: a usage CSV of March 2026 with one row dated February 30.
import type { Static } from 'typebox';
import { Value } from 'typebox/value';
import { BatchJob, type BatchJobDetail, type BatchJobFailure, type CreateBatchJobRequest } from './schemas.js';

export const BATCH_JOB_ID = 'bjob_01KKRNW4G0GTHZ4JQFJN6QXCXS';

export const createJobExample: Static<typeof CreateBatchJobRequest> = {
  job_type: 'EVENT_CSV_IMPORT',
  file_name: 'march-usage.csv',
  csv: 'event_id,event_code,customer_alias,timestamp,region\nevt-0001,api_calls,crm-42,2026-03-02T10:00:00Z,eu-west-1\nevt-0002,api_calls,crm-42,2026-02-30T10:05:00Z,eu-west-1\n',
  params: { delimiter: ',', fail_on_error: false },
};

export const createdJobExample: Static<typeof BatchJobDetail> = {
  id: BATCH_JOB_ID,
  job_type: 'EVENT_CSV_IMPORT',
  status: 'PENDING',
  input_file_name: 'march-usage.csv',
  total_items: 2,
  processed_items: 0,
  failed_items: 0,
  matched_items: null,
  created_by: 'key_01KKRNW4G065MRERJVFX6S7ZHW',
  created_at: '2026-04-01T08:30:12.640Z',
  completed_at: null,
  failure_count: 0,
  has_error_csv: false,
  error_csv_url: null,
  input_file_url: null,
};

export const finishedJobExample: Static<typeof BatchJobDetail> = {
  ...createdJobExample,
  status: 'COMPLETED_WITH_ERRORS',
  processed_items: 1,
  failed_items: 1,
  completed_at: '2026-04-01T08:30:13.115Z',
  failure_count: 1,
};

/** The list shows jobs without the detail's fields. */
export const jobListExample = {
  data: [Value.Clean(BatchJob, Value.Clone(finishedJobExample)) as Static<typeof BatchJob>],
  pagination_meta: { page: 0, per_page: 10, total_items: 1, total_pages: 1 },
};

export const failuresExample: { data: Static<typeof BatchJobFailure>[]; total_count: number } = {
  data: [{
    id: '0b6f3e2a-54c1-4d8e-9a71-3c2f8e5d9b10',
    chunk_id: 'bjch_01KKRNW4G0A4T8XHM2C6QZ9P1R',
    item_index: 1,
    item_identifier: 'evt-0002',
    reason: "timestamp '2026-02-30T10:05:00Z' is not an RFC 3339 date-time",
  }],
  total_count: 1,
};
