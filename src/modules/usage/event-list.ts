// The tenant's ingested events, newest first (GET /api/v1/events; docs/usage.md, "Listing events").
import type { Pool } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import { badRequest } from '../../kernel/errors.js';
import { CUSTOMER_NAMES_RELATION } from '../customers/index.js';
import { TENANT_KEY } from './repository.js';

export interface ListedEvent {
  event_id: string;
  code: string;
  customer_ref: string;
  /** The customer the reference names today (its id or alias), null while none has it. */
  customer_id: string | null;
  ts: Date;
  properties: Record<string, string>;
  ingested_at: Date;
}

export interface EventListQuery {
  customer_id?: string;
  code?: string;
  from?: string;
  to?: string;
  limit?: number;
  cursor?: string;
}

export const EVENT_LIST_DEFAULT_LIMIT = 20;

/**
 * Position in the ingest order: the writing transaction (`xid`, indexed per partition with the
 * tenant) then the event id, which is unique per tenant, so positions never tie. Opaque on the wire.
 */
interface Position { xid: string; eventId: string }

const encodeCursor = (p: Position) => Buffer.from(JSON.stringify([p.xid, p.eventId])).toString('base64url');

function decodeCursor(cursor: string): Position {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && /^\d{1,20}$/.test(value[0]) && typeof value[1] === 'string') {
      return { xid: value[0], eventId: value[1] };
    }
  } catch { /* refused below */ }
  throw badRequest("cursor must be a next_cursor returned by this list, e.g. 'WyI3NDMiLCJldnQtMSJd'");
}

/** `from`/`to`, checked as RFC 3339 with a time zone by the route's schema; checked again for other callers. */
function parseInstant(value: string, field: string): Date {
  const at = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:\d{2})$/i.test(value) || Number.isNaN(at.getTime())) throw badRequest(`${field} must be an RFC 3339 timestamp, e.g. '2026-03-01T00:00:00Z', got '${value}'`);
  return at;
}

/**
 * The customer id the stored reference of event `e` names now: a customer with that id, else the
 * one with that alias. Two unique-index look-ups (in the customers' collation, for their indexes),
 * run for the page's rows only: subqueries of the select list are evaluated after the LIMIT.
 */
const RESOLVED_CUSTOMER = `coalesce(
  (SELECT n.id FROM ${CUSTOMER_NAMES_RELATION} n WHERE n.tenant_id = $1 AND n.id = e.customer_ref COLLATE "default"),
  (SELECT n.id FROM ${CUSTOMER_NAMES_RELATION} n WHERE n.tenant_id = $1 AND n.alias = e.customer_ref COLLATE "default"))`;

/**
 * One page of the tenant's events in ingest order, newest first, and the cursor of the next page
 * (null on the last). Keyset on (xid, event_id): the plan is a backward merge of the partitions'
 * (tenant_key, xid) indexes stopped by the LIMIT, whatever the number of events; `from`/`to`
 * prune partitions by timestamp. `customerRefs`: the stored references `query.customer_id` means
 * (the query service resolves them), null for every customer.
 */
export async function listEvents(
  pool: Pool, tenantId: string, query: EventListQuery, customerRefs: readonly string[] | null,
): Promise<{ data: ListedEvent[]; nextCursor: string | null }> {
  const limit = query.limit ?? EVENT_LIST_DEFAULT_LIMIT;
  const after = query.cursor !== undefined ? decodeCursor(query.cursor) : null;
  const from = query.from !== undefined ? parseInstant(query.from, 'from') : null;
  const to = query.to !== undefined ? parseInstant(query.to, 'to') : null;
  if (from && to && to <= from) throw badRequest('to must be after from (the window is [from, to))');
  const rows = await scoped(pool, tenantId).query<ListedEvent & { xid: string }>(
    `SELECT e.event_id, e.code, e.customer_ref, ${RESOLVED_CUSTOMER} AS customer_id, e.ts, e.properties, e.ingested_at, e.xid::text AS xid
     FROM usage_events e
     WHERE e.tenant_key = ${TENANT_KEY}
       AND ($2::text[] IS NULL OR e.customer_ref = ANY($2::text[]))
       AND ($3::text IS NULL OR e.code = $3)
       AND ($4::timestamptz IS NULL OR e.ts >= $4) AND ($5::timestamptz IS NULL OR e.ts < $5)
       AND ($6::xid8 IS NULL OR (e.xid <= $6::xid8 AND (e.xid < $6::xid8 OR e.event_id COLLATE "C" < $7)))
     ORDER BY e.xid DESC, e.event_id COLLATE "C" DESC
     LIMIT $8`,
    [customerRefs, query.code ?? null, from, to, after?.xid ?? null, after?.eventId ?? null, limit + 1],
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    data: page.map(({ xid: _xid, ...event }) => event),
    nextCursor: rows.length > limit && last ? encodeCursor({ xid: last.xid, eventId: last.event_id }) : null,
  };
}
