import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { PageRequest } from '../../kernel/paging.js';

export interface EndpointRow {
  id: string;
  url: string;
  description: string | null;
  event_types: string[] | null;
  enabled: boolean;
  disabled_reason: 'MANUAL' | 'FAILING' | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

const ENDPOINT_COLUMNS = `id, url, description, event_types, enabled, disabled_reason, secret, previous_secret,
  previous_secret_expires_at, failing_since, created_at, updated_at`;

export async function insertEndpoint(db: Queryable, tenantId: string, row: EndpointRow): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO webhook_endpoints (tenant_id, id, url, description, event_types, enabled, disabled_reason, secret, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [row.id, row.url, row.description, row.event_types, row.enabled, row.disabled_reason, row.secret, row.created_at, row.updated_at],
  );
}

export async function findEndpoint(db: Queryable, tenantId: string, endpointId: string, lock = false): Promise<EndpointRow | undefined> {
  return scoped(db, tenantId).one<EndpointRow>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [endpointId],
  );
}

export async function listEndpoints(db: Queryable, tenantId: string, page: PageRequest, direction: 'ASC' | 'DESC'): Promise<{ rows: EndpointRow[]; total: number }> {
  return scoped(db, tenantId).page<EndpointRow>(
    { columns: ENDPOINT_COLUMNS, from: 'webhook_endpoints', where: 'tenant_id = $1', orderBy: `created_at ${direction}, id ${direction}` },
    [],
    page,
  );
}

export async function updateEndpoint(
  db: Queryable,
  tenantId: string,
  row: Pick<EndpointRow, 'id' | 'url' | 'description' | 'event_types' | 'enabled' | 'disabled_reason' | 'failing_since' | 'updated_at'>,
): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE webhook_endpoints SET url = $3, description = $4, event_types = $5, enabled = $6, disabled_reason = $7, failing_since = $8, updated_at = $9
     WHERE tenant_id = $1 AND id = $2`,
    [row.id, row.url, row.description, row.event_types, row.enabled, row.disabled_reason, row.failing_since, row.updated_at],
  );
}

export async function rotateSecret(db: Queryable, tenantId: string, endpointId: string, secret: string, previousExpiresAt: Date | null, at: Date): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE webhook_endpoints SET previous_secret = CASE WHEN $4::timestamptz IS NULL THEN NULL ELSE secret END,
       previous_secret_expires_at = $4, secret = $3, updated_at = $5
     WHERE tenant_id = $1 AND id = $2`,
    [endpointId, secret, previousExpiresAt, at],
  );
}

export async function deleteEndpoint(db: Queryable, tenantId: string, endpointId: string): Promise<boolean> {
  const rows = await scoped(db, tenantId).query(`DELETE FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2 RETURNING id`, [endpointId]);
  return rows.length > 0;
}

/** Enabled endpoints that want this kind of event. */
export async function endpointsFor(db: Queryable, tenantId: string, eventType: string): Promise<{ id: string }[]> {
  return scoped(db, tenantId).query<{ id: string }>(
    `SELECT id FROM webhook_endpoints WHERE tenant_id = $1 AND enabled AND (event_types IS NULL OR $2 = ANY(event_types)) ORDER BY id`,
    [eventType],
  );
}

/** Counts a failure; returns when the current run of failures started. */
export async function markEndpointFailing(db: Queryable, tenantId: string, endpointId: string, at: Date): Promise<Date> {
  const row = await scoped(db, tenantId).one<{ failing_since: Date }>(
    `UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, $3) WHERE tenant_id = $1 AND id = $2 RETURNING failing_since`,
    [endpointId, at],
  );
  return row?.failing_since ?? at;
}

export async function markEndpointHealthy(db: Queryable, tenantId: string, endpointId: string): Promise<void> {
  await scoped(db, tenantId).query(`UPDATE webhook_endpoints SET failing_since = NULL WHERE tenant_id = $1 AND id = $2 AND failing_since IS NOT NULL`, [endpointId]);
}

/** Disables an endpoint that is still enabled; true when this call disabled it (so the event is written once). */
export async function disableFailingEndpoint(db: Queryable, tenantId: string, endpointId: string, at: Date): Promise<boolean> {
  const rows = await scoped(db, tenantId).query(
    `UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'FAILING', updated_at = $3 WHERE tenant_id = $1 AND id = $2 AND enabled RETURNING id`,
    [endpointId, at],
  );
  return rows.length > 0;
}
