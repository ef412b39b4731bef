import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, errorResponses, examplePage, listResponse, orderByQuery, PageQuery } from '../../http/schemas.js';
import { createMetricExample, metricExample, metricSummaryExamples } from './examples.js';
import type { MetricsService } from './service.js';
import { CreateMetricRequest, Metric, metricSummaryToWire, MetricSummary, metricToWire, UpdateMetricRequest } from './schemas.js';

const MetricIdParams = Type.Object({ metric_id: Type.String({ description: 'Metric ID (`bm_...`)' }) });

const DEFINITION_RULES =
  '`segmentation_matrix` splits usage by event properties: `SINGLE {key, values}`, `DOUBLE {dimension1: {key, values}, dimension2: {key, values}}` (two different keys) ' +
  'or `LINKED {dimension1_key, dimension2_key, values: {first value: [second values]}}`; value lists are non-empty and without repeats. ' +
  '`unit_conversion {factor, rounding}` divides the aggregated quantity by `factor` (an integer from 1 to 2147483647) and rounds it ' +
  '(`UP`, `DOWN`, `NEAREST`, `NEAREST_HALF`, `NEAREST_DECILE` or `NONE`), e.g. bytes to GB.';

export function metricRoutes(service: MetricsService) {
  return (app: App) => {
    const tags = ['Metrics'];
    app.get('/api/v1/metrics', {
      schema: {
        tags,
        operationId: 'list_metrics',
        summary: 'List billable metrics',
        description:
          'Lists the tenant\'s billable metrics, archived ones included, by name A to Z unless `order_by` says otherwise. Filters: `product_family_id` (a family id) ' +
          'and `search` (part of the name or of the code, case-insensitive). Items are summaries; get a metric for its segmentation, unit conversion and grouping. ' +
          'Paged: `page` from 0, `per_page` 1 to 100 (default 10).',
        querystring: Type.Object({
          product_family_id: Type.Optional(Type.String({ description: 'Only metrics of this family (its id)' })),
          search: Type.Optional(Type.String({ description: 'Search by metric name or code' })),
          order_by: orderByQuery(['name', 'code', 'created_at'], 'name.asc'),
          ...PageQuery,
        }),
        response: { 200: documented(listResponse(MetricSummary), 'A page of metric summaries.', examplePage(metricSummaryExamples)), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.list(authOf(request).tenantId, request.query);
      return { data: page.data.map(metricSummaryToWire), pagination_meta: page.pagination_meta };
    });

    app.post('/api/v1/metrics', {
      schema: {
        tags,
        operationId: 'create_metric',
        summary: 'Create a billable metric',
        description:
          'Creates a billable metric: how the usage events whose `code` matches turn into one quantity per period. `name` is 1 to 255 characters; `code` (1 to 512 bytes) ' +
          'need not be unique, several metrics may read one event code. `aggregation_type`: `COUNT` counts events and takes no `aggregation_key` (giving one is a 400); ' +
          '`SUM`, `MAX`, `MIN`, `MEAN`, `LATEST` and `COUNT_DISTINCT` read the event property named by `aggregation_key`, which is then required. ' +
          '`product_family_id` is the id or alias of a family of the tenant; `product_id`, if given, must be a product of that family. ' +
          `${DEFINITION_RULES} \`usage_group_key\` names a property usage is grouped by; it must not also be a segmentation key. Emits the \`metric.created\` event.`,
        body: documented(CreateMetricRequest, 'The metric to create.', createMetricExample),
        response: { 201: documented(Metric, 'The new metric.', metricExample), ...errorResponses([400, 401]) },
      },
    }, async (request, reply) => reply.status(201).send(metricToWire(await service.create(authOf(request).tenantId, request.body))));

    app.get('/api/v1/metrics/:metric_id', {
      schema: {
        tags,
        operationId: 'get_metric',
        summary: 'Get a billable metric',
        description: 'Returns one billable metric of the tenant, archived or not, with its full definition.',
        params: MetricIdParams,
        response: { 200: documented(Metric, 'The metric.', metricExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => metricToWire(await service.get(authOf(request).tenantId, request.params.metric_id)));

    app.patch('/api/v1/metrics/:metric_id', {
      schema: {
        tags,
        operationId: 'update_metric',
        summary: 'Update a billable metric',
        description:
          'Partially update a metric. Code, aggregation and grouping are immutable. Only `name`, `description`, `segmentation_matrix` and `unit_conversion` change; ' +
          'null clears the last three. `code`, `aggregation_type`, `aggregation_key`, `product_family_id`, `product_id` and `usage_group_key` are refused with a 400 ' +
          `(create a new metric instead), as is any other field. ${DEFINITION_RULES} Emits the \`metric.updated\` event.`,
        params: MetricIdParams,
        body: documented(UpdateMetricRequest, 'The fields to change.', { description: 'Peak stored bytes, per region', unit_conversion: { factor: 1073741824, rounding: 'UP' } }),
        response: {
          200: documented(Metric, 'The metric as changed.', { ...metricExample, description: 'Peak stored bytes, per region', unit_conversion: { factor: 1073741824, rounding: 'UP' } }),
          ...errorResponses([400, 401, 404]),
        },
      },
    }, async (request) =>
      metricToWire(await service.update(authOf(request).tenantId, request.params.metric_id, request.body as Record<string, unknown>)));

    app.post('/api/v1/metrics/:metric_id/archive', {
      schema: {
        tags,
        operationId: 'archive_metric',
        summary: 'Archive a billable metric',
        description:
          'Archives the metric: new products, features and plan components can no longer use it (400), while plans already billing it keep doing so. ' +
          'It stays in the list. Archiving an archived metric changes nothing. Emits the `metric.archived` event.',
        params: MetricIdParams,
        response: { 204: documented(Type.Null(), 'Archived (or already archived); no body.'), ...errorResponses([401, 404]) },
      },
    }, async (request, reply) => {
      await service.archive(authOf(request).tenantId, request.params.metric_id);
      return reply.status(204).send(null);
    });

    app.post('/api/v1/metrics/:metric_id/unarchive', {
      schema: {
        tags,
        operationId: 'unarchive_metric',
        summary: 'Unarchive a billable metric',
        description:
          'Makes an archived metric usable by new products, features and plan components again, and emits `metric.updated`. A metric that is not archived is left as it is, without an event.',
        params: MetricIdParams,
        response: { 204: documented(Type.Null(), 'Unarchived (or was not archived); no body.'), ...errorResponses([401, 404]) },
      },
    }, async (request, reply) => {
      await service.unarchive(authOf(request).tenantId, request.params.metric_id);
      return reply.status(204).send(null);
    });
  };
}
