import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer } from 'node:net';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../src/db/embedded.js';
import { createPool } from '../../src/db/pool.js';
import { migrate } from '../../src/db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of a database on the test server; harnesses connect here to create their own. */
    adminUrl: string;
    templateDatabase: string;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/**
 * Real PostgreSQL for every test: TEST_DATABASE_URL (e.g. Debian's PostgreSQL 15 in CI) or, by
 * default, an embedded server in a temporary folder. A template database is migrated once.
 */
export default async function setup(project: TestProject) {
  // The app serves the built dashboard at `/` (docs/dashboard.md); `npm ci` builds it, a clone
  // that skipped scripts gets it here once (about 10 s).
  execFileSync(process.execPath, ['dashboard/build.mjs', '--if-missing'], { stdio: 'inherit' });
  let embedded: EmbeddedServer | undefined;
  let dataDir: string | undefined;
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    dataDir = mkdtempSync(path.join(tmpdir(), 'billing-test-pg-'));
    chmodSync(dataDir, 0o755); // as root the server runs as the postgres user, which must reach it
    embedded = await startEmbeddedPostgres({ dataDir, port: await freePort() });
    adminUrl = embedded.url;
  }
  const templateDatabase = `billing_tpl_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${templateDatabase}`);
  const pool = createPool(withDatabase(adminUrl, templateDatabase), 2);
  await migrate(pool);
  await pool.end();
  project.provide('adminUrl', adminUrl);
  project.provide('templateDatabase', templateDatabase);

  return async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${templateDatabase} WITH (FORCE)`).catch(() => {});
    await admin.end();
    await embedded?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
}
