import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, ErrorBody, errorResponses, examplePage, listResponse, PageQuery } from '../../http/schemas.js';
import type { ExportConfigService } from './config-service.js';
import * as ex from './examples.js';
import type { ExportRuns } from './runs.js';
import { configToWire, ExportConfigBody, ExportConfigRequest, ExportRun, runToWire } from './schemas.js';

const RunParams = Type.Object({ run_id: Type.String({ description: 'Export run ID', examples: [ex.RUN_ID] }) });
const NO_CONFIG = documented(ErrorBody, 'No export configuration yet.', { code: 'NOT_FOUND', message: 'export configuration not found' });

export function exportRoutes(configs: ExportConfigService, runs: ExportRuns) {
  return (app: App) => {
    const tags = ['Data export'];

    app.get('/api/v1/exports/config', {
      schema: {
        tags,
        operationId: 'get_export_config',
        summary: 'Get the export configuration',
        description: 'The tenant\'s data export: schedule, format, destination (the S3 secret only as a hint), the next scheduled run and how far each dataset has been exported.',
        response: { 200: documented(ExportConfigBody, 'The configuration', ex.configExample), ...errorResponses([401]), 404: NO_CONFIG },
      },
    }, async (request) => configToWire(await configs.get(authOf(request).tenantId)));

    app.put('/api/v1/exports/config', {
      schema: {
        tags,
        operationId: 'put_export_config',
        summary: 'Create or replace the export configuration',
        description:
          'Sets the tenant\'s scheduled data export (docs/export.md): `schedule` HOURLY or DAILY (UTC), `format` PARQUET or CSV, and a `destination`: a FOLDER on the server ' +
          '(an absolute path inside the operator\'s EXPORT_FOLDER_ROOT, created if missing) or an S3 bucket (bucket, region, optional prefix and endpoint for S3-compatible ' +
          'stores, access key id and secret access key). The secret is stored sealed with the service secret and never returned; sending the same `access_key_id` without ' +
          '`secret_access_key` keeps the stored one. Watermarks are kept: a new destination receives what was not exported yet.',
        body: documented(ExportConfigRequest, 'The configuration', ex.putExample),
        response: { 200: documented(ExportConfigBody, 'The configuration as stored', ex.configExample), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const auth = authOf(request);
      return configToWire(await configs.put(auth.tenantId, auth.environment, request.body));
    });

    app.delete('/api/v1/exports/config', {
      schema: {
        tags,
        operationId: 'delete_export_config',
        summary: 'Delete the export configuration',
        description: 'Stops scheduled exports and forgets the destination (and its secret). Runs and watermarks stay, so a new configuration goes on where exports stopped.',
        response: { 204: documented(Type.Null(), 'Deleted; no body.'), ...errorResponses([401]), 404: NO_CONFIG },
      },
    }, async (request, reply) => {
      await configs.remove(authOf(request).tenantId);
      return reply.status(204).send(null);
    });

    app.post('/api/v1/exports/runs', {
      schema: {
        tags,
        operationId: 'create_export_run',
        summary: 'Start an export run',
        description:
          'Starts a run now, besides the schedule: each dataset\'s file holds what changed since its watermark (invoices, credit notes), what was finalized or recorded ' +
          '(invoice lines, payments), or the whole UTC days that ended (usage). The answer is the run RUNNING; a job writes the files, then the run is SUCCEEDED with its ' +
          'files and row counts and `export.completed` is emitted. A FAILED run is retried instead (same windows, same file names). A run RUNNING, or no configuration, is a 409.',
        response: {
          202: documented(ExportRun, 'The run, RUNNING', ex.runningExample),
          ...errorResponses([401]),
          409: documented(ErrorBody, 'A run is running, or there is no configuration.', { code: 'CONFLICT', message: `export run ${ex.RUN_ID} is RUNNING; start another once it has finished` }),
        },
      },
    }, async (request, reply) => reply.status(202).send(runToWire(await runs.start(authOf(request).tenantId))));

    app.get('/api/v1/exports/runs', {
      schema: {
        tags,
        operationId: 'list_export_runs',
        summary: 'List export runs',
        description: 'The tenant\'s export runs, newest first, optionally only those of one `status`. Paged: `page` from 0, `per_page` 1 to 100 (default 10).',
        querystring: Type.Object({ status: Type.Optional(Type.Enum(['RUNNING', 'SUCCEEDED', 'FAILED'], { description: 'Only runs in this status' })), ...PageQuery }),
        response: { 200: documented(listResponse(ExportRun), 'A page of runs', examplePage([ex.succeededExample])), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await runs.list(authOf(request).tenantId, request.query);
      return { data: page.data.map(runToWire), pagination_meta: page.pagination_meta };
    });

    app.get('/api/v1/exports/runs/:run_id', {
      schema: {
        tags,
        operationId: 'get_export_run',
        summary: 'Get an export run',
        description: 'One run: its status, the window of each dataset, and once SUCCEEDED its files with their row counts and sizes.',
        params: RunParams,
        response: {
          200: documented(ExportRun, 'The run', ex.succeededExample),
          ...errorResponses([401]),
          404: documented(ErrorBody, 'No export run with this id in the tenant.', { code: 'NOT_FOUND', message: 'export run not found' }),
        },
      },
    }, async (request) => runToWire(await runs.get(authOf(request).tenantId, request.params.run_id)));
  };
}
