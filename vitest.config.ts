import { defineConfig } from 'vitest/config';

/** Pure tests (no database, no app): rules of src/domain, src/kernel and module files. */
const DOMAIN_TESTS = ['test/domain/**/*.test.ts', 'test/unit/**/*.test.ts'];
/** Fuzzer, tenant-isolation probe and multi-process checks: `npm run test:reliability` (docs/reliability.md). */
const RELIABILITY_TESTS = ['test/reliability/**/*.test.ts'];

export default defineConfig({
  test: {
    // Each test file gets its own database cloned from a migrated template, so files run in parallel.
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        // No globalSetup: nothing starts PostgreSQL, so `npm run test:domain` takes seconds. A test
        // that needs the database fails here (test/harness/database.ts finds no adminUrl).
        extends: true,
        // Generous limits: on a loaded 2-core machine the first test of a file also waits for the app to warm up.
        test: { name: 'domain', include: DOMAIN_TESTS, testTimeout: 60_000 },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...DOMAIN_TESTS, ...RELIABILITY_TESTS],
          globalSetup: ['test/harness/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'reliability',
          include: RELIABILITY_TESTS,
          globalSetup: ['test/harness/global-setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
