import pg from 'pg';
import { inject } from 'vitest';
import { createPool, type Pool } from '../../src/db/pool.js';
import { withDatabase } from './global-setup.js';

export interface TestDatabase {
  pool: Pool;
  url: string;
  drop(): Promise<void>;
}

/** A fresh database cloned from the migrated template: each test file owns its data. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = inject('adminUrl');
  const template = inject('templateDatabase');
  if (!adminUrl || !template) {
    // Only the integration project's globalSetup starts PostgreSQL (vitest.config.ts).
    throw new Error('this test needs the database: move it out of test/domain and test/unit, which run without one');
  }
  const name = `billing_test_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
      break;
    } catch (error) {
      // Two clones of one template at the same instant can collide; try again shortly.
      if (attempt > 20 || !/being accessed by other users/.test((error as Error).message)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
    }
  }
  const url = withDatabase(adminUrl, name);
  const pool = createPool(url, 10);
  return {
    pool,
    url,
    drop: async () => {
      await pool.end();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
