import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { errorResponses, listResponse, orderByQuery, PageQuery } from '../../http/schemas.js';
import type { MetricsService } from './service.js';
import { CreateMetricRequest, Metric, metricSummaryToWire, MetricSummary, metricToWire, UpdateMetricRequest } from './schemas.js';

const MetricIdParams = Type.Object({ metric_id: Type.String({ description: 'Metric ID' }) });

export function metricRoutes(service: MetricsService) {
  return (app: App) => {
    const tags = ['Metrics'];
    app.get('/api/v1/metrics', {
      schema: {
        tags,
        operationId: 'list_metrics',
        querystring: Type.Object({
          product_family_id: Type.Optional(Type.String()),
          search: Type.Optional(Type.String({ description: 'Search by metric name or code' })),
          order_by: orderByQuery(['name', 'code', 'created_at'], 'name.asc'),
          ...PageQuery,
        }),
        response: { 200: listResponse(MetricSummary), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.list(authOf(request).tenantId, request.query);
      return { data: page.data.map(metricSummaryToWire), pagination_meta: page.pagination_meta };
    });

    app.post('/api/v1/metrics', {
      schema: { tags, operationId: 'create_metric', body: CreateMetricRequest, response: { 201: Metric, ...errorResponses([400, 401]) } },
    }, async (request, reply) => reply.status(201).send(metricToWire(await service.create(authOf(request).tenantId, request.body))));

    app.get('/api/v1/metrics/:metric_id', {
      schema: { tags, operationId: 'get_metric', params: MetricIdParams, response: { 200: Metric, ...errorResponses([401, 404]) } },
    }, async (request) => metricToWire(await service.get(authOf(request).tenantId, request.params.metric_id)));

    app.patch('/api/v1/metrics/:metric_id', {
      schema: {
        tags,
        operationId: 'update_metric',
        description: 'Partially update a metric. Code, aggregation and grouping are immutable.',
        params: MetricIdParams,
        body: UpdateMetricRequest,
        response: { 200: Metric, ...errorResponses([400, 401, 404]) },
      },
    }, async (request) =>
      metricToWire(await service.update(authOf(request).tenantId, request.params.metric_id, request.body as Record<string, unknown>)));

    app.post('/api/v1/metrics/:metric_id/archive', {
      schema: { tags, operationId: 'archive_metric', params: MetricIdParams, response: { 204: Type.Null(), ...errorResponses([401, 404]) } },
    }, async (request, reply) => {
      await service.archive(authOf(request).tenantId, request.params.metric_id);
      return reply.status(204).send(null);
    });

    app.post('/api/v1/metrics/:metric_id/unarchive', {
      schema: { tags, operationId: 'unarchive_metric', params: MetricIdParams, response: { 204: Type.Null(), ...errorResponses([401, 404]) } },
    }, async (request, reply) => {
      await service.unarchive(authOf(request).tenantId, request.params.metric_id);
      return reply.status(204).send(null);
    });
  };
}
