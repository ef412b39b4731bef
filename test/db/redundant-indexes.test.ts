// An index whose columns lead another index of the same table (same kind, same condition) serves
// no query the other cannot, and costs an entry on every write (docs/performance.md, "Bill run").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/pool.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

/** "<table>: <index> (<columns>) is served by <index> (<columns>)" for each redundant non-unique btree index of the public schema. */
async function redundantIndexes(conn: Queryable): Promise<string[]> {
  const { rows } = await conn.query<{ line: string }>(
    `WITH idx AS (
       SELECT i.indrelid, i.indexrelid, i.indisunique, i.indkey::text AS cols, pg_get_expr(i.indpred, i.indrelid) AS pred,
              i.indexprs IS NULL AS plain, am.amname,
              (SELECT string_agg(a.attname, ', ' ORDER BY k.n) FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
                 JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum) AS names
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public')
     SELECT format('%s: %s (%s) is served by %s (%s)', a.indrelid::regclass, a.indexrelid::regclass, a.names, b.indexrelid::regclass, b.names) AS line
     FROM idx a JOIN idx b ON a.indrelid = b.indrelid AND a.indexrelid <> b.indexrelid
     WHERE a.amname = 'btree' AND b.amname = 'btree' AND a.plain AND b.plain AND NOT a.indisunique
       AND a.pred IS NOT DISTINCT FROM b.pred AND (b.cols = a.cols OR b.cols LIKE a.cols || ' %')
       -- of two identical non-unique indexes, name the later one
       AND NOT (b.cols = a.cols AND NOT b.indisunique AND b.indexrelid > a.indexrelid)
     ORDER BY 1`,
  );
  return rows.map((r) => r.line);
}

describe('indexes', () => {
  it('has no index that another index of its table already serves', async () => {
    expect(await redundantIndexes(db.pool)).toEqual([]);
  });

  it('names an index that leads another, and one that repeats another', async () => {
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('CREATE TABLE redundancy_probe (tenant_id text, id text, code text, PRIMARY KEY (tenant_id, id))');
      await client.query('CREATE INDEX redundancy_probe_tenant_idx ON redundancy_probe (tenant_id)');
      await client.query('CREATE INDEX redundancy_probe_code_idx ON redundancy_probe (tenant_id, code)');
      await client.query('CREATE INDEX redundancy_probe_code_again_idx ON redundancy_probe (tenant_id, code)');
      // not redundant: another order, another condition
      await client.query('CREATE INDEX redundancy_probe_code_first_idx ON redundancy_probe (code, tenant_id)');
      await client.query(`CREATE INDEX redundancy_probe_some_idx ON redundancy_probe (tenant_id) WHERE code IS NOT NULL`);
      expect(await redundantIndexes(client)).toEqual([
        'redundancy_probe: redundancy_probe_code_again_idx (tenant_id, code) is served by redundancy_probe_code_idx (tenant_id, code)',
        'redundancy_probe: redundancy_probe_tenant_idx (tenant_id) is served by redundancy_probe_code_again_idx (tenant_id, code)',
        'redundancy_probe: redundancy_probe_tenant_idx (tenant_id) is served by redundancy_probe_code_idx (tenant_id, code)',
        'redundancy_probe: redundancy_probe_tenant_idx (tenant_id) is served by redundancy_probe_pkey (tenant_id, id)',
      ]);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
