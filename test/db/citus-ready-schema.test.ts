// The schema can be sharded by tenant (Citus, docs/scaling.md): every tenant table is distributed by
// tenant_id, so its primary key and every unique constraint or index must hold tenant_id (a shard
// can only enforce uniqueness of what lives in it), and every foreign key between tenant tables
// carries tenant_id on both sides (so it stays inside one shard, and no row points at another
// tenant's). Tables without tenant_id are reference tables (copied to every node), listed with the
// reason; a new table must be one or the other (docs/architecture.md, "Keys of tenant tables").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardingViolations } from './sharding.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

describe('the schema can be sharded by tenant', () => {
  it('has tenant_id in every key of a tenant table and on both sides of every foreign key between them', async () => {
    expect(await shardingViolations(db.pool)).toEqual([]);
  });

  it('names a key without tenant_id, a foreign key crossing tenants and an unclassified table', async () => {
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`CREATE TABLE sharding_probe (id text PRIMARY KEY, tenant_id text NOT NULL, customer_id text, code text, UNIQUE (code),
        FOREIGN KEY (tenant_id, customer_id) REFERENCES customers (tenant_id, id))`);
      await client.query(`CREATE TABLE sharding_probe_lines (id text, tenant_id text NOT NULL, probe_id text, customer_id text, PRIMARY KEY (tenant_id, id))`);
      await client.query(`CREATE UNIQUE INDEX sharding_probe_lines_probe_key ON sharding_probe_lines (probe_id)`);
      // tenant_id against the customer's id: composite, yet it crosses tenants
      await client.query(`ALTER TABLE sharding_probe_lines ADD CONSTRAINT sharding_probe_lines_customer_fkey FOREIGN KEY (customer_id, tenant_id) REFERENCES customers (tenant_id, id)`);
      await client.query(`CREATE TABLE sharding_global (id text PRIMARY KEY)`);
      expect(await shardingViolations(client)).toEqual([
        'sharding_global: no tenant_id; add it (a tenant table) or list the table in REFERENCE_TABLES with the reason',
        'sharding_probe: unique sharding_probe_code_key (code) lacks tenant_id',
        'sharding_probe: primary key sharding_probe_pkey (id) lacks tenant_id',
        'sharding_probe_lines: unique sharding_probe_lines_probe_key (probe_id) lacks tenant_id',
        'sharding_probe_lines: foreign key sharding_probe_lines_customer_fkey (customer_id, tenant_id) -> customers (tenant_id, id) does not match tenant_id to tenant_id',
      ]);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
