import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { errorResponses, listResponse, PageQuery } from '../../http/schemas.js';
import type { BatchJobQueries } from './query-service.js';
import { MAX_CSV_BYTES, type BatchJobCreation } from './create-service.js';
import { BatchJob, BatchJobDetail, BatchJobFailure, BatchJobStatus, BatchJobType, CreateBatchJobRequest, failureToWire, jobDetailToWire, jobToWire } from './schemas.js';

const JobIdParams = Type.Object({ batch_job_id: Type.String({ description: 'Batch job ID' }) });
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
        description: 'Uploads a CSV import. An identical file with a job still running answers that job (200).',
        body: CreateBatchJobRequest,
        response: { 201: BatchJobDetail, 200: BatchJobDetail, ...errorResponses([400, 401, 409]) },
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
        querystring: Type.Object({
          job_type: Type.Optional(BatchJobType),
          status: Type.Optional(Type.Array(BatchJobStatus, { description: 'Repeat for several statuses' })),
          ...PageQuery,
        }),
        response: { 200: listResponse(BatchJob), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await queries.listJobs(authOf(request).tenantId, request.query);
      return { data: page.data.map(jobToWire), pagination_meta: page.pagination_meta };
    });

    app.get('/api/v1/batch-jobs/:batch_job_id', {
      schema: { tags, operationId: 'get_batch_job', params: JobIdParams, response: { 200: BatchJobDetail, ...errorResponses([401, 404]) } },
    }, async (request) => {
      const { job, failureCount } = await queries.getJob(authOf(request).tenantId, request.params.batch_job_id);
      return jobDetailToWire(job, failureCount);
    });

    app.get('/api/v1/batch-jobs/:batch_job_id/failures', {
      schema: {
        tags,
        operationId: 'list_batch_job_failures',
        params: JobIdParams,
        querystring: Type.Object({
          chunk_id: Type.Optional(Type.String()),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Failures per page (1-100, default 25)' })),
          offset: Type.Optional(Type.Integer({ minimum: 0, description: 'Failures to skip (default 0)' })),
        }),
        response: { 200: Type.Object({ data: Type.Array(BatchJobFailure), total_count: Type.Integer() }), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => {
      const page = await queries.listFailures(authOf(request).tenantId, request.params.batch_job_id, request.query);
      return { data: page.data.map(failureToWire), total_count: page.total_count };
    });
  };
}
