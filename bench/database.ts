import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { createPool, type Pool } from '../src/db/pool.js';
import { migrate } from '../src/db/migrate.js';

export interface BenchDatabase {
  pool: Pool;
  /** URL of the bench's own database (for psql COPY). */
  url: string;
  /** Drops the database and stops the embedded server, if one was started. */
  close(): Promise<void>;
}

/**
 * A fresh, migrated database for one bench: on `adminUrl`'s server (default BENCH_DATABASE_URL),
 * or, when that is null or unset, on an embedded PostgreSQL in a temporary folder.
 */
export async function openBenchDatabase(name: string, poolSize = 20, server: string | null = process.env.BENCH_DATABASE_URL ?? null): Promise<BenchDatabase> {
  let adminUrl = server ?? undefined;
  let stopEmbedded: (() => Promise<void>) | undefined;
  let dataDir: string | undefined;
  if (!adminUrl) {
    dataDir = mkdtempSync(path.join(tmpdir(), 'billing-bench-pg-'));
    chmodSync(dataDir, 0o755); // as root the server runs as the postgres user, which must reach it
    const server = await startEmbeddedPostgres({ dataDir, port: 54000 + Math.floor(Math.random() * 2000) });
    adminUrl = server.url;
    stopEmbedded = () => server.stop();
  }
  const dbName = `billing_bench_${name}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  const pool = createPool(url.toString(), poolSize);
  await migrate(pool);
  return {
    pool,
    url: url.toString(),
    close: async () => {
      await pool.end();
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await admin.end();
      await stopEmbedded?.();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
