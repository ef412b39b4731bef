import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { BoundedInteger, documented, errorResponses, listResponse, PageQuery } from '../../http/schemas.js';
import type { BatchJobQueries } from './query-service.js';
import { MAX_CSV_BYTES, type BatchJobCreation } from './create-service.js';
import { BatchJob, BatchJobDetail, BatchJobFailure, BatchJobStatus, BatchJobType, CreateBatchJobRequest, failureToWire, jobDetailToWire, jobToWire } from './schemas.js';
import * as ex from './examples.js';

const JobIdParams = Type.Object({ batch_job_id: Type.String({ description: 'Batch job ID', examples: [ex.BATCH_JOB_ID] }) });

/** How a job moves, said by every operation that shows one. */
const STATUSES =
  'Status: PENDING -> PROCESSING -> COMPLETED (every row imported), COMPLETED_WITH_ERRORS (some rows failed) or FAILED (no row imported); ' +
  'at the end `processed_items` + `failed_items` = `total_items`. CHUNKING and CANCELLED are never used.';
/** JSON escaping makes the body larger than the file; our own 400 names `csv` past 10 MB. */
const CREATE_BODY_LIMIT_BYTES = MAX_CSV_BYTES * 2;

export function batchJobRoutes(creation: BatchJobCreation, queries: BatchJobQueries) {
  return (app: App) => {
    const tags = ['Batch Jobs'];

    app.post('/api/v1/batch-jobs', {
      bodyLimit: CREATE_BODY_LIMIT_BYTES,
      schema: {
        tags,
        operationId: 'create_batch_job',
        summary: 'Upload a CSV import',
        description:
          'Imports usage events (EVENT_CSV_IMPORT: `event_code`, `customer_id` or `customer_alias`, optional `event_id` and `timestamp`, other columns become properties) ' +
          'or customers (CUSTOMER_CSV_IMPORT: `name`, `currency`, optional alias, e-mails, address...), ' +
          'or matches bank lines to invoices (BANK_PAYMENT_CSV_IMPORT: `date`, `amount`, `currency`, `reference`, optional `payer` and `bank_line_id`; each line naming one FINALIZED invoice\'s payment reference ' +
          'is recorded as a payment of it, once per line even when uploaded again; unmatched, ambiguous, wrong-currency and over-paying lines are failures that record nothing; `matched_items` counts the payments recorded) ' +
          'from a CSV file sent as text, at most 10 MB. ' +
          'The file is checked before anything is stored: no data row, an unclosed quote, a blank or repeated header name, missing required columns (or, for customers, ' +
          'an unknown column) are a 400 naming `csv`, as is a file over 10 MB; a `params.delimiter` that is not one character is a 400 naming it; SUBSCRIPTION_CSV_IMPORT and SUBSCRIPTION_PLAN_MIGRATION cannot be created (400). The rows are then imported in the background in chunks, in file order; ' +
          'a bad row becomes a failure of that row (with `params.fail_on_error`, of its whole 500-row event chunk). Events always allow backfilling, and a blank `event_id` ' +
          'is derived from the file and the row, so importing a file again never counts usage twice. ' +
          'Duplicate files: the same file with a job of the same type still PENDING or PROCESSING answers that job (200, nothing new); a file already imported by a ' +
          'COMPLETED or COMPLETED_WITH_ERRORS job is a 409 naming it, unless `force_duplicate: true`. ' + STATUSES,
        body: documented(CreateBatchJobRequest, 'The job type and the CSV file as text', ex.createJobExample),
        response: {
          201: documented(BatchJobDetail, 'The new job, PENDING', ex.createdJobExample),
          200: documented(BatchJobDetail, 'The job already importing the same file', ex.createdJobExample),
          ...errorResponses([400, 401, 409, 413]),
        },
      },
    }, async (request, reply) => {
      const auth = authOf(request);
      const { job, created } = await creation.createJob(auth.tenantId, auth.principalId, request.body);
      return reply.status(created ? 201 : 200).send(jobDetailToWire(job, 0));
    });

    app.get('/api/v1/batch-jobs', {
      schema: {
        tags,
        operationId: 'list_batch_jobs',
        summary: 'List batch jobs',
        description:
          'The tenant\'s import jobs, newest first. Filters: `job_type`, `status` (repeat for several). Paged with `page` (0-based) and `per_page` (1-100, default 10). ' + STATUSES,
        querystring: Type.Object({
          job_type: Type.Optional(BatchJobType),
          status: Type.Optional(Type.Array(BatchJobStatus, { description: 'Repeat for several statuses' })),
          ...PageQuery,
        }),
        response: { 200: documented(listResponse(BatchJob), 'One page of jobs', ex.jobListExample), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await queries.listJobs(authOf(request).tenantId, request.query);
      return { data: page.data.map(jobToWire), pagination_meta: page.pagination_meta };
    });

    app.get('/api/v1/batch-jobs/:batch_job_id', {
      schema: {
        tags,
        operationId: 'get_batch_job',
        summary: 'Get a batch job',
        description:
          'One job with its progress and `failure_count` (the rows listed by the failures operation). The error CSV and the input file are not offered ' +
          '(`has_error_csv` false, URLs null). Another tenant\'s job is a 404. ' + STATUSES,
        params: JobIdParams,
        response: { 200: documented(BatchJobDetail, 'The job', ex.finishedJobExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => {
      const { job, failureCount } = await queries.getJob(authOf(request).tenantId, request.params.batch_job_id);
      return jobDetailToWire(job, failureCount);
    });

    app.get('/api/v1/batch-jobs/:batch_job_id/failures', {
      schema: {
        tags,
        operationId: 'list_batch_job_failures',
        summary: 'List the failed rows of a batch job',
        description:
          'The rows that were not imported, in file order, each with its 0-based data row (`item_index`, the header not counted), its event id or customer alias (or name), ' +
          'and why. Paged with `limit` (1-100, default 25) and `offset`; `chunk_id` keeps one chunk\'s rows. An unknown job is a 404.',
        params: JobIdParams,
        querystring: Type.Object({
          chunk_id: Type.Optional(Type.String()),
          limit: Type.Optional(BoundedInteger({ minimum: 1, maximum: 100, description: 'Failures per page (1-100, default 25)' })),
          offset: Type.Optional(BoundedInteger({ minimum: 0, description: 'Failures to skip (default 0)' })),
        }),
        response: { 200: documented(Type.Object({ data: Type.Array(BatchJobFailure), total_count: Type.Integer() }), 'One page of failed rows and how many there are', ex.failuresExample), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => {
      const page = await queries.listFailures(authOf(request).tenantId, request.params.batch_job_id, request.query);
      return { data: page.data.map(failureToWire), total_count: page.total_count };
    });
  };
}
