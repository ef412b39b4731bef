import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { errorResponses } from '../../http/schemas.js';
import { badRequest } from '../../kernel/errors.js';
import { ingestFailureError } from './errors.js';
import type { IngestService } from './ingest-service.js';
import type { UsageQueryService } from './query-service.js';
import {
  failuresToWire,
  IngestEventRequest,
  IngestEventResponse,
  IngestEventsRequest,
  IngestEventsResponse,
  IngestRefusedResponse,
  UsageResponse,
  usageToWire,
} from './schemas.js';

const UsageQuery = {
  metric_id: Type.Optional(Type.String({ description: 'Only this billable metric' })),
};
const Dates = {
  start_date: Type.String({ format: 'date', description: 'First day of the period (inclusive, 00:00 UTC)' }),
  end_date: Type.String({ format: 'date', description: 'Day after the period (exclusive, 00:00 UTC)' }),
};

export function usageRoutes(ingest: IngestService, queries: UsageQueryService) {
  return (app: App) => {
    app.post('/api/v1/events/ingest', {
      config: { checksBodyText: true }, // per event, with its index
      schema: {
        tags: ['Events'],
        operationId: 'ingest_events',
        body: IngestEventsRequest,
        response: { 200: IngestEventsResponse, 400: IngestRefusedResponse, ...errorResponses([401]) },
      },
    }, async (request, reply) => {
      const { events, allow_backfilling, allow_partial_failures, strict } = request.body;
      const result = await ingest.ingest(authOf(request).tenantId, events, {
        allowBackfilling: allow_backfilling === true,
        allowPartialFailures: allow_partial_failures === true,
        strict: strict === true,
      });
      if (!result.accepted) {
        return reply.status(400).send({
          code: 'BAD_REQUEST',
          message: `${result.failures.length} of ${events.length} events refused; nothing was stored (set allow_partial_failures to store the others)`,
          failures: failuresToWire(result.failures),
        });
      }
      return {
        ingested: result.ingested,
        duplicates: result.duplicates,
        ...(result.failures.length ? { failures: failuresToWire(result.failures) } : {}),
      };
    });

    app.post('/api/v1/events', {
      config: { checksBodyText: true },
      schema: {
        tags: ['Events'],
        operationId: 'ingest_event',
        body: IngestEventRequest,
        response: { 200: IngestEventResponse, 201: IngestEventResponse, ...errorResponses([400, 401, 409]) },
      },
    }, async (request, reply) => {
      const { event_id, idempotency_key, ...rest } = request.body;
      if (event_id !== undefined && idempotency_key !== undefined && event_id !== idempotency_key) {
        throw badRequest('event_id and idempotency_key must be equal when both are given (the key is the event id)');
      }
      const eventId = event_id ?? idempotency_key;
      if (eventId === undefined) throw badRequest('idempotency_key (or event_id) is required');
      const result = await ingest.ingestOne(authOf(request).tenantId, { ...rest, event_id: eventId });
      const failure = result.failures[0];
      if (failure) throw ingestFailureError(failure);
      return reply.status(result.ingested === 1 ? 201 : 200).send({ event_id: eventId, duplicate: result.ingested === 0 });
    });

    const tags = ['Usage'];
    app.get('/api/v1/usage/customer/:customer_id', {
      schema: {
        tags,
        operationId: 'get_customer_usage',
        params: Type.Object({ customer_id: Type.String({ description: 'Customer ID or alias' }) }),
        querystring: Type.Object({ ...Dates, ...UsageQuery }),
        response: { 200: UsageResponse, ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => usageToWire(await queries.customerUsage(authOf(request).tenantId, request.params.customer_id, request.query)));

    app.get('/api/v1/usage/subscription/:subscription_id', {
      schema: {
        tags,
        operationId: 'get_subscription_usage',
        params: Type.Object({ subscription_id: Type.String({ description: 'Subscription ID' }) }),
        querystring: Type.Object({ start_date: Type.Optional(Dates.start_date), end_date: Type.Optional(Dates.end_date), ...UsageQuery }),
        response: { 200: UsageResponse, ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => usageToWire(await queries.subscriptionUsage(authOf(request).tenantId, request.params.subscription_id, request.query)));

    app.get('/api/v1/usage/summary', {
      schema: {
        tags,
        operationId: 'get_usage_summary',
        querystring: Type.Object({ ...Dates, ...UsageQuery }),
        response: { 200: UsageResponse, ...errorResponses([400, 401]) },
      },
    }, async (request) => usageToWire(await queries.summary(authOf(request).tenantId, request.query)));
  };
}
