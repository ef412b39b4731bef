import { afterAll, beforeAll } from 'vitest';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { loadConfig, type Config } from '../../src/config/index.js';
import { ManualClock } from '../../src/kernel/clock.js';
import { compose, type Composition } from '../../src/main.js';
import { drainJobs } from '../../src/jobs/runtime.js';
import { createTestDatabase, type TestDatabase } from './database.js';

export interface TestTenant {
  id: string;
  apiKey: string;
  organizationId: string;
}

export interface RequestOptions {
  body?: unknown;
  key?: string | null;
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

export interface Harness {
  db: TestDatabase;
  clock: ManualClock;
  config: Config;
  service: Composition;
  /** Sandbox tenant of organization A (the default caller). */
  tenant: TestTenant;
  /** Production tenant of organization A. */
  production: TestTenant;
  /** A tenant of another organization, for isolation tests. */
  other: TestTenant;
  request(method: InjectOptions['method'], url: string, options?: RequestOptions): Promise<LightMyRequestResponse>;
  /** Runs every job due now (outbox consumers, deliveries...). */
  drainJobs(): Promise<void>;
}

let counter = 0;

export async function createHarness(overrides: Partial<Config> = {}): Promise<Harness> {
  const db = await createTestDatabase();
  const clock = new ManualClock('2026-03-15T12:00:00.000Z');
  const config: Config = { ...loadConfig({}), logLevel: 'silent', webhookAllowPrivateUrls: true, secretKey: 'test-only-secret-key', ...overrides };
  const service = await compose({ pool: db.pool, clock, config });
  counter += 1;
  const a = await service.accounts.bootstrap({ email: `owner${counter}@a.test`, password: 'password-a', organization: 'Org A' });
  const b = await service.accounts.bootstrap({ email: `owner${counter}@b.test`, password: 'password-b', organization: 'Org B' });
  const pick = (result: typeof a, environment: 'production' | 'sandbox'): TestTenant => {
    const t = result.tenants.find((x) => x.environment === environment)!;
    return { id: t.id, apiKey: t.api_key, organizationId: result.organization.id };
  };
  const tenant = pick(a, 'sandbox');
  return {
    db,
    clock,
    config,
    service,
    tenant,
    production: pick(a, 'production'),
    other: pick(b, 'sandbox'),
    request: (method, url, options = {}) => {
      const headers: Record<string, string> = { ...options.headers };
      const key = options.key === undefined ? tenant.apiKey : options.key;
      if (key !== null && headers.authorization === undefined) headers.authorization = `Bearer ${key}`;
      return service.app.inject({ method, url, headers, query: options.query, ...(options.body !== undefined ? { payload: options.body as object } : {}) });
    },
    drainJobs: () => drainJobs(db.pool, service.tasks),
  };
}

/** Creates a harness before the file's tests and tears it down after them. */
export function useHarness(overrides: Partial<Config> = {}): () => Harness {
  let harness: Harness | undefined;
  beforeAll(async () => {
    harness = await createHarness(overrides);
  });
  afterAll(async () => {
    await harness?.service.app.close();
    await harness?.db.drop();
  });
  return () => {
    if (!harness) throw new Error('harness not ready');
    return harness;
  };
}
