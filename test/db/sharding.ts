// Reads from the catalog what keeps the schema from being sharded by tenant (Citus): the check of
// test/db/citus-ready-schema.test.ts, kept apart so it can be run against any database.
import type { Queryable } from '../../src/db/pool.js';

/** Tables copied whole to every node in Citus, and why they are not sharded by tenant. */
export const REFERENCE_TABLES: Record<string, string> = {
  schema_migrations: 'the migrations applied; one list for the whole database',
  organizations: 'an organization owns several tenants (sandbox and production); read at sign-in before a tenant is chosen',
  users: 'merchant users sign in by e-mail, before any tenant is known, and may belong to several organizations',
  organization_members: 'links users to organizations, both global',
  web_sessions: 'browser sessions of the sign-in pages, found by their cookie before a tenant is chosen',
  tenants: 'the tenants themselves (tenant_id is generated as id): every tenant table references it, so it is on every node',
  api_keys: 'an API key is found by the hash of its secret before the tenant is known; small and read on every request',
  oauth_apps: 'OAuth clients authenticate by client id and secret before any tenant is known',
  oauth_grants: 'a grant links an app of a platform tenant to a connected tenant: it spans two tenants',
  oauth_codes: 'found by the hash of the code at /oauth/token, before the tenant is known',
  oauth_tokens: 'found by the hash of the bearer token on every request, before the tenant is known',
  connected_accounts: 'links a platform tenant to the tenant it connected: it spans two tenants',
  connected_account_links: 'one-time onboarding links, found by the hash of their token before the tenant is known',
  job_workers: 'the processes running job workers and their heartbeats (src/jobs/runtime.ts), not tenant data',
  rate_limit_windows: 'request counts per API key shared by the processes; keyed by the key, written without a tenant lookup',
  outbox_cursors: 'how far each outbox consumer has read the outbox of all tenants',
};

/** The per-event usage tables carry `tenant_key` (a 4-byte stand-in, tenants.key) instead of tenant_id: distributed by it, co-located among themselves. */
const USAGE_KEY = 'tenant_key';

interface KeyRow { table: string; name: string; kind: string; columns: string[] }
interface ForeignKeyRow { table: string; name: string; columns: string[]; references: string; referenced: string[] }

/** What keeps the schema from being sharded by tenant; empty when it can be. */
export async function shardingViolations(db: Queryable): Promise<string[]> {
  const tables = (await db.query<{ table: string; columns: string[] }>(
    `SELECT c.relname AS table, array_agg(a.attname::text ORDER BY a.attnum) AS columns
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      GROUP BY c.relname ORDER BY c.relname`)).rows;
  // keys: primary keys, unique constraints and unique indexes (a unique index is a constraint to a shard too)
  const keys = (await db.query<KeyRow>(
    `SELECT c.relname AS table, i.relname AS name, CASE WHEN x.indisprimary THEN 'primary key' ELSE 'unique' END AS kind,
            array(SELECT coalesce(a.attname::text, '(expression)') FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(n, ord)
                    LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.n ORDER BY k.ord) AS columns
       FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND x.indisunique AND NOT c.relispartition ORDER BY 1, 2`)).rows;
  const foreignKeys = (await db.query<ForeignKeyRow>(
    `SELECT c.relname AS table, con.conname AS name, r.relname AS references,
            array(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(n, ord) JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.n ORDER BY k.ord) AS columns,
            array(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(n, ord) JOIN pg_attribute a ON a.attrelid = r.oid AND a.attnum = k.n ORDER BY k.ord) AS referenced
       FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid JOIN pg_class r ON r.oid = con.confrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND con.contype = 'f' AND NOT c.relispartition ORDER BY 1, 2`)).rows;

  const violations: string[] = [];
  const distributionColumn = new Map<string, string>();
  for (const { table, columns } of tables) {
    if (table in REFERENCE_TABLES) continue;
    const column = columns.includes('tenant_id') ? 'tenant_id' : columns.includes(USAGE_KEY) ? USAGE_KEY : undefined;
    if (column) distributionColumn.set(table, column);
    else violations.push(`${table}: no tenant_id; add it (a tenant table) or list the table in REFERENCE_TABLES with the reason`);
  }
  for (const table of distributionColumn.keys()) {
    if (!keys.some((k) => k.table === table && k.kind === 'primary key') && table !== 'usage_events') violations.push(`${table}: no primary key`);
  }
  for (const key of keys) {
    const column = distributionColumn.get(key.table);
    if (column && !key.columns.includes(column)) violations.push(`${key.table}: ${key.kind} ${key.name} (${key.columns.join(', ')}) lacks ${column}`);
  }
  for (const fk of foreignKeys) {
    const from = distributionColumn.get(fk.table);
    const to = distributionColumn.get(fk.references);
    if (!from && to) violations.push(`${fk.table}: foreign key ${fk.name} of a reference table points at the tenant table ${fk.references}`);
    if (from && to) {
      const at = fk.columns.indexOf(from);
      if (at < 0 || fk.referenced[at] !== to) violations.push(`${fk.table}: foreign key ${fk.name} (${fk.columns.join(', ')}) -> ${fk.references} (${fk.referenced.join(', ')}) does not match ${from} to ${to}`);
    }
  }
  return violations;
}
