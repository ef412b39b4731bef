import { MS_PER_HOUR, type Clock } from '../../kernel/clock.js';
import { badRequest, conflict, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { paginationMeta, parseOrderBy, pageRequest, type Page } from '../../kernel/paging.js';
import { isSubscribableEventType, TEST_EVENT_TYPE } from '../../kernel/event-types.js';
import type { Pool } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { privateAddressProblem, urlShapeProblem, type LookupAll } from '../../adapters/http/url-guard.js';
import * as repo from './repository.js';
import type { EndpointRow } from './repository.js';
import * as deliveriesRepo from './deliveries-repository.js';
import type { AttemptRow, DeliveryRow, DeliveryStatus } from './deliveries-repository.js';
import { newSigningSecret } from './signing.js';
import type { SigningSecretBox } from './secrets.js';
import { eventEnvelope, kickDeliveries, pendingDelivery } from './delivery-service.js';

export type Environment = 'production' | 'sandbox';

export interface EndpointInput {
  url?: string;
  description?: string | null;
  event_types?: string[] | null;
  enabled?: boolean;
}

export interface ListQuery {
  page?: number;
  per_page?: number;
  order_by?: string;
}

export const DEFAULT_GRACE_PERIOD_HOURS = 24;

export function createEndpointsService(deps: { pool: Pool; clock: Clock; allowPrivateUrls: boolean; secrets: SigningSecretBox; lookup?: LookupAll }) {
  const { pool, clock } = deps;

  async function checkUrl(url: string, environment: Environment): Promise<string> {
    const trimmed = url.trim();
    const problem = urlShapeProblem(trimmed, 'url') ?? (environment === 'production' && !deps.allowPrivateUrls ? await privateAddressProblem(trimmed, 'url', deps.lookup) : undefined);
    if (problem) throw badRequest(problem);
    return trimmed;
  }

  function checkEventTypes(types: string[] | null | undefined): string[] | null {
    if (types === undefined || types === null) return null;
    if (types.length === 0) throw badRequest('event_types must list at least one event type, or be null for every type');
    types.forEach((type, i) => {
      if (!isSubscribableEventType(type)) throw badRequest(`event_types[${i}] '${type}' is not a known event type`);
    });
    return [...new Set(types)];
  }

  async function requireEndpoint(tenantId: string, endpointId: string): Promise<EndpointRow> {
    const row = await repo.findEndpoint(pool, tenantId, endpointId);
    if (!row) throw notFound('webhook endpoint');
    return row;
  }

  async function create(tenantId: string, environment: Environment, input: EndpointInput & { url: string }): Promise<{ endpoint: EndpointRow; secret: string }> {
    const url = await checkUrl(input.url, environment);
    const enabled = input.enabled ?? true;
    const secret = newSigningSecret();
    const id = newId('webhookEndpoint', clock.now().getTime());
    const row: EndpointRow = {
      id,
      url,
      description: input.description ?? null,
      event_types: checkEventTypes(input.event_types),
      enabled,
      disabled_reason: enabled ? null : 'MANUAL',
      secret: deps.secrets.seal(secret, tenantId, id),
      previous_secret: null,
      previous_secret_expires_at: null,
      failing_since: null,
      created_at: clock.now(),
      updated_at: clock.now(),
    };
    await repo.insertEndpoint(pool, tenantId, row);
    return { endpoint: row, secret };
  }

  async function list(tenantId: string, query: ListQuery): Promise<Page<EndpointRow>> {
    const page = pageRequest(query.page, query.per_page);
    const order = parseOrderBy(query.order_by, ['created_at'] as const, { column: 'created_at', direction: 'desc' });
    const { rows, total } = await repo.listEndpoints(pool, tenantId, page, order.direction === 'asc' ? 'ASC' : 'DESC');
    return { data: rows, pagination_meta: paginationMeta(page, total) };
  }

  async function update(tenantId: string, environment: Environment, endpointId: string, input: EndpointInput): Promise<EndpointRow> {
    const url = input.url !== undefined ? await checkUrl(input.url, environment) : undefined;
    const eventTypes = input.event_types !== undefined ? checkEventTypes(input.event_types) : undefined;
    return withTx(pool, async (tx) => {
      const current = await repo.findEndpoint(tx, tenantId, endpointId, true);
      if (!current) throw notFound('webhook endpoint');
      const enabled = input.enabled ?? current.enabled;
      const reenabled = enabled && !current.enabled;
      const next: EndpointRow = {
        ...current,
        url: url ?? current.url,
        description: input.description !== undefined ? input.description : current.description,
        event_types: eventTypes !== undefined ? eventTypes : current.event_types,
        enabled,
        disabled_reason: enabled ? null : current.enabled ? 'MANUAL' : current.disabled_reason,
        // a re-enabled endpoint starts a fresh failure window
        failing_since: reenabled ? null : current.failing_since,
        updated_at: clock.now(),
      };
      await repo.updateEndpoint(tx, tenantId, next);
      if (reenabled) await kickDeliveries(tx);
      return next;
    });
  }

  async function remove(tenantId: string, endpointId: string): Promise<void> {
    if (!(await repo.deleteEndpoint(pool, tenantId, endpointId))) throw notFound('webhook endpoint');
  }

  /** New secret; the old one keeps signing alongside it for the grace period. */
  async function rotateSecret(tenantId: string, endpointId: string, gracePeriodHours = DEFAULT_GRACE_PERIOD_HOURS): Promise<{ endpoint: EndpointRow; secret: string }> {
    await requireEndpoint(tenantId, endpointId);
    const secret = newSigningSecret();
    const expiresAt = gracePeriodHours > 0 ? new Date(clock.now().getTime() + gracePeriodHours * MS_PER_HOUR) : null;
    await repo.rotateSecret(pool, tenantId, endpointId, deps.secrets.seal(secret, tenantId, endpointId), expiresAt, clock.now());
    return { endpoint: await requireEndpoint(tenantId, endpointId), secret };
  }

  async function listDeliveries(
    tenantId: string,
    endpointId: string,
    query: ListQuery & { status?: DeliveryStatus; event_id?: string },
  ): Promise<Page<DeliveryRow> & { attempts: AttemptRow[] }> {
    await requireEndpoint(tenantId, endpointId);
    const page = pageRequest(query.page, query.per_page);
    const order = parseOrderBy(query.order_by, ['created_at'] as const, { column: 'created_at', direction: 'desc' });
    const { rows, total } = await deliveriesRepo.listDeliveries(pool, tenantId, endpointId, { status: query.status, eventId: query.event_id }, page, order.direction === 'asc' ? 'ASC' : 'DESC');
    const attempts = await deliveriesRepo.attemptsOf(pool, tenantId, rows.map((r) => r.id));
    return { data: rows, pagination_meta: paginationMeta(page, total), attempts };
  }

  async function getDelivery(tenantId: string, endpointId: string, deliveryId: string): Promise<{ delivery: DeliveryRow; attempts: AttemptRow[] }> {
    const delivery = await deliveriesRepo.findDelivery(pool, tenantId, endpointId, deliveryId);
    if (!delivery) throw notFound('webhook delivery');
    return { delivery, attempts: await deliveriesRepo.attemptsOf(pool, tenantId, [delivery.id]) };
  }

  async function queueDelivery(tenantId: string, row: DeliveryRow): Promise<DeliveryRow> {
    return withTx(pool, async (tx) => {
      await deliveriesRepo.insertDelivery(tx, tenantId, row);
      await kickDeliveries(tx);
      return row;
    });
  }

  function manualDelivery(endpointId: string, source: Pick<DeliveryRow, 'event_id' | 'event_type' | 'object_id' | 'payload'>, trigger: 'REDELIVERY' | 'TEST'): DeliveryRow {
    return pendingDelivery(clock, endpointId, { ...source, event_seq: null }, trigger);
  }

  /**
   * Sends a delivery's event again as a new delivery with the same event id, so a receiver that
   * already processed it can recognise the duplicate. Not held back by the per-object order.
   */
  async function redeliver(tenantId: string, endpointId: string, deliveryId: string): Promise<DeliveryRow> {
    const endpoint = await requireEndpoint(tenantId, endpointId);
    if (!endpoint.enabled) throw conflict(`webhook endpoint ${endpointId} is disabled; enable it before redelivering`);
    const { delivery } = await getDelivery(tenantId, endpointId, deliveryId);
    return queueDelivery(tenantId, manualDelivery(endpointId, delivery, 'REDELIVERY'));
  }

  async function sendTestEvent(tenantId: string, endpointId: string): Promise<DeliveryRow> {
    const endpoint = await requireEndpoint(tenantId, endpointId);
    if (!endpoint.enabled) throw conflict(`webhook endpoint ${endpointId} is disabled; enable it before sending a test event`);
    const eventId = newId('outboxEvent', clock.now().getTime());
    const data = { endpoint_id: endpointId, message: 'This is a test event.' };
    return queueDelivery(tenantId, manualDelivery(endpointId, { event_id: eventId, event_type: TEST_EVENT_TYPE, object_id: endpointId, payload: eventEnvelope(eventId, TEST_EVENT_TYPE, clock.now(), data) }, 'TEST'));
  }

  return { create, list, get: requireEndpoint, update, remove, rotateSecret, listDeliveries, getDelivery, redeliver, sendTestEvent };
}

export type EndpointsService = ReturnType<typeof createEndpointsService>;
