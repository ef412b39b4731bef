import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { BoundedInteger, documented, errorResponses, examplePage, listResponse, orderByQuery, PageQuery } from '../../http/schemas.js';
import { badRequest } from '../../kernel/errors.js';
import { EVENT_LIST_DEFAULT_LIMIT } from './event-list.js';
import { UNRESOLVED_DEFAULT_ORDER, UNRESOLVED_ORDER_COLUMNS } from './unresolved.js';
import { ingestFailureError } from './errors.js';
import type { IngestService } from './ingest-service.js';
import type { UsageQueryService } from './query-service.js';
import {
  EventListResponse,
  failuresToWire,
  listedEventToWire,
  ingestResultToWire,
  unknownCustomerWarning,
  IngestEventRequest,
  IngestEventResponse,
  IngestEventsRequest,
  IngestEventsResponse,
  IngestRefusedResponse,
  UnresolvedCustomer,
  unresolvedToWire,
  UsageResponse,
  usageToWire,
} from './schemas.js';
import * as ex from './examples.js';

const UsageQuery = {
  metric_id: Type.Optional(Type.String({ description: 'Only this billable metric' })),
};
const Dates = {
  start_date: Type.String({ format: 'date', description: 'First day of the period (inclusive, 00:00 UTC)', examples: ['2026-03-01'] }),
  end_date: Type.String({ format: 'date', description: 'Day after the period (exclusive, 00:00 UTC)', examples: ['2026-04-01'] }),
};
/** How every usage query reads events. */
const QUERY_RULES =
  'Periods are half-open, [start_date 00:00 UTC, end_date 00:00 UTC): an event exactly at a boundary belongs to the later period; end_date must be after start_date (400). ' +
  'Values are decimal strings before unit conversion (invoicing applies it), `total_value` is the metric\'s aggregation over all events (COUNT, SUM, MIN, MAX, MEAN, LATEST, ' +
  'COUNT_DISTINCT), `grouped_usage` splits it by the metric\'s group key and segmentation keys. A `metric_id` that is not one of the metrics queried is a 400. ' +
  'These are the figures invoicing and metered entitlements use.';
const usageResponse = (description: string) => documented(UsageResponse, description, ex.usageExample);

export function usageRoutes(ingest: IngestService, queries: UsageQueryService) {
  return (app: App) => {
    app.post('/api/v1/events/ingest', {
      config: { checksBodyText: true }, // per event, with its index
      schema: {
        tags: ['Events'],
        operationId: 'ingest_events',
        summary: 'Ingest a batch of usage events',
        description:
          'Stores 1 to 10,000 events in one statement. Each event names a billable metric `code`, a customer (id or alias) and a `timestamp` (RFC 3339, empty = now); ' +
          '`properties` is a flat object of string values. Time windows: at most 1 hour in the future; more than 24 hours in the past only with `allow_backfilling: true`. ' +
          '`strict: true` refuses codes no billable metric reads. An alias no customer has yet is accepted (events may arrive before their customer) and counted in ' +
          '`unknown_customer_events`, with a warning; an unknown id shaped like a customer id (`cus_` and 26 characters) is refused. ' +
          'An event whose period is already billed (on a finalized invoice, or on a draft created after its grace period ended) is stored, counted in `in_finalized_periods`, and billed as late usage on the customer\'s next invoice ' +
          '(an adjustment invoice once the subscription has ended). ' +
          'Idempotent per event: an `event_id` already stored with the same payload counts in `duplicates` and changes nothing; the same id with another payload is a failure. ' +
          'By default one bad event refuses the whole batch: 400 with every failure (`{index, event_id, reason}`) and nothing stored. With `allow_partial_failures: true` ' +
          'the good events are stored and the answer lists the failures.',
        body: documented(IngestEventsRequest, 'The events and how to treat late or bad ones', ex.ingestEventsExample),
        response: {
          200: documented(IngestEventsResponse, 'The batch was stored (with `allow_partial_failures`, the failures are listed)', ex.ingestedExample, ex.partlyIngestedExample, ex.lateAndUnknownExample),
          400: documented(IngestRefusedResponse, 'The batch was refused and nothing was stored: a malformed body, or (without `allow_partial_failures`) at least one bad event', ex.refusedExample),
          ...errorResponses([401, 409, 413]),
        },
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
      return ingestResultToWire(result);
    });

    app.post('/api/v1/events', {
      config: { checksBodyText: true },
      schema: {
        tags: ['Events'],
        operationId: 'ingest_event',
        summary: 'Ingest one usage event',
        description:
          'Stores one event in real time, keyed by `idempotency_key` (or `event_id`; when both are sent they must be equal, and one of them is required). ' +
          'The same checks as a batch apply (24-hour backfill window without backfilling, 1 hour into the future, string properties). A customer alias no customer has yet ' +
          'is accepted with a `warning`; an unknown customer id is a 400. `in_finalized_period: true` says the event\'s period is already billed (on a finalized invoice, or on a draft created after its grace period ended): ' +
          'it is billed as late usage on the customer\'s next invoice. ' +
          'Idempotent: 201 `duplicate: false` when stored; 200 `duplicate: true` when the same id was already stored with the same payload (nothing changes); ' +
          'the same id with another payload is a 409; any other refusal is a 400 naming the field.',
        body: documented(IngestEventRequest, 'The event', ex.ingestEventExample),
        response: {
          200: documented(IngestEventResponse, 'Already stored with the same payload: nothing changed', { event_id: 'evt-2026-03-15-000186', duplicate: true, in_finalized_period: false }),
          201: documented(IngestEventResponse, 'Stored', { event_id: 'evt-2026-03-15-000186', duplicate: false, in_finalized_period: false }, ex.storedForUnknownCustomerExample),
          ...errorResponses([400, 401, 409]),
        },
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
      const warning = unknownCustomerWarning(result);
      return reply.status(result.ingested === 1 ? 201 : 200).send({
        event_id: eventId,
        duplicate: result.ingested === 0,
        in_finalized_period: result.inFinalizedPeriods > 0,
        ...(warning ? { warning } : {}),
      });
    });

    app.get('/api/v1/events', {
      schema: {
        tags: ['Events'],
        operationId: 'list_events',
        summary: 'List ingested events, newest first',
        description:
          'The tenant\'s stored events in ingest order, the most recently ingested first, to check that ingestion works. Filters: `customer_id` (a customer\'s id or alias: ' +
          'its events under either; a reference no customer has lists the events stored under it), `code`, and a timestamp window [`from`, `to`). ' +
          '`limit` 1 to 100 (default 20). Paged by cursor: pass the answer\'s `next_cursor` as `cursor` for the next, older, page; it is null on the last page. ' +
          'Events ingested while you page land on the first page, not between pages. Refused events are not stored and not listed (the ingest answer lists them). ' +
          'Not in the reference API.',
        querystring: Type.Object({
          customer_id: Type.Optional(Type.String({ minLength: 1, description: 'Customer id or alias', examples: ['crm-42'] })),
          code: Type.Optional(Type.String({ minLength: 1, description: 'Billable metric code', examples: ['api_calls'] })),
          from: Type.Optional(Type.String({ format: 'date-time', description: 'Events timestamped at or after this instant (RFC 3339)', examples: ['2026-03-01T00:00:00Z'] })),
          to: Type.Optional(Type.String({ format: 'date-time', description: 'Events timestamped before this instant (RFC 3339)', examples: ['2026-04-01T00:00:00Z'] })),
          limit: Type.Optional(BoundedInteger({ minimum: 1, maximum: 100, description: `Events per page (1-100, default ${EVENT_LIST_DEFAULT_LIMIT})` })),
          cursor: Type.Optional(Type.String({ minLength: 1, description: 'The `next_cursor` of the previous page' })),
        }),
        response: {
          200: documented(EventListResponse, 'A page of events, newest ingested first.', ex.eventListExample),
          ...errorResponses([400, 401]),
        },
      },
    }, async (request) => {
      const page = await queries.events(authOf(request).tenantId, request.query);
      return { data: page.data.map(listedEventToWire), next_cursor: page.nextCursor };
    });

    app.get('/api/v1/events/unresolved-customers', {
      schema: {
        tags: ['Events'],
        operationId: 'list_unresolved_customers',
        summary: 'List customer aliases that events name but no customer has',
        description:
          'Events may arrive before their customer: an event whose `customer_id` is an alias no customer has yet is stored under that alias and counts for the customer ' +
          'that takes the alias later (its invoices not yet finalized included). This lists those aliases with how many events name each, so a typo does not go ' +
          'unnoticed; an alias disappears from the list once a customer takes it. Ordered by `event_count` (most first) unless `order_by` says otherwise. ' +
          'Paged: `page` from 0, `per_page` 1 to 100 (default 10). Not in the reference API.',
        querystring: Type.Object({ order_by: orderByQuery(UNRESOLVED_ORDER_COLUMNS, UNRESOLVED_DEFAULT_ORDER), ...PageQuery }),
        response: {
          200: documented(listResponse(UnresolvedCustomer), 'A page of unresolved customer aliases.', examplePage(ex.unresolvedCustomersExample)),
          ...errorResponses([400, 401]),
        },
      },
    }, async (request) => {
      const page = await queries.unresolvedCustomers(authOf(request).tenantId, request.query);
      return { data: page.data.map(unresolvedToWire), pagination_meta: page.pagination_meta };
    });

    const tags = ['Usage'];
    app.get('/api/v1/usage/customer/:customer_id', {
      schema: {
        tags,
        operationId: 'get_customer_usage',
        summary: 'Usage of one customer',
        description:
          'Usage of one customer (id or alias; events stored under its alias are included) over a period, for every non-archived billable metric or only `metric_id`. ' +
          'An unknown customer is a 404. ' + QUERY_RULES,
        params: Type.Object({ customer_id: Type.String({ description: 'Customer ID or alias', examples: ['crm-42'] }) }),
        querystring: Type.Object({ ...Dates, ...UsageQuery }),
        response: { 200: usageResponse("The customer's usage per metric"), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => usageToWire(await queries.customerUsage(authOf(request).tenantId, request.params.customer_id, request.query)));

    app.get('/api/v1/usage/subscription/:subscription_id', {
      schema: {
        tags,
        operationId: 'get_subscription_usage',
        summary: 'Usage of one subscription',
        description:
          'Usage of the subscription\'s customer for the metrics its usage and capacity fees in force today bill on; the period defaults to the current billing period. ' +
          'An unknown subscription is a 404. ' + QUERY_RULES,
        params: Type.Object({ subscription_id: Type.String({ description: 'Subscription ID', examples: ['sub_01KKRNW4G0P3977S414S2FKJMX'] }) }),
        querystring: Type.Object({ start_date: Type.Optional(Dates.start_date), end_date: Type.Optional(Dates.end_date), ...UsageQuery }),
        response: { 200: usageResponse('Usage per metric the subscription bills'), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => usageToWire(await queries.subscriptionUsage(authOf(request).tenantId, request.params.subscription_id, request.query)));

    app.get('/api/v1/usage/summary', {
      schema: {
        tags,
        operationId: 'get_usage_summary',
        summary: 'Usage of all customers',
        description: 'Usage of every customer of the tenant together over a period, for every non-archived billable metric or only `metric_id`. ' + QUERY_RULES,
        querystring: Type.Object({ ...Dates, ...UsageQuery }),
        response: { 200: usageResponse("The tenant's usage per metric"), ...errorResponses([400, 401]) },
      },
    }, async (request) => usageToWire(await queries.summary(authOf(request).tenantId, request.query)));
  };
}
