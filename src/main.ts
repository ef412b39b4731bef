import type { Config } from './config/index.js';
import { systemClock, type Clock } from './kernel/clock.js';
import { randomToken } from './kernel/secrets.js';
import { createPool, type Pool } from './db/pool.js';
import { startEmbeddedPostgres, type EmbeddedServer } from './db/embedded.js';
import { migrate } from './db/migrate.js';
import type { App } from './http/app.js';
import { startWorker, type Worker } from './jobs/runtime.js';
import type { AccountsService } from './modules/accounts/index.js';
import { scheduleBillingRuns } from './modules/invoices/index.js';
import { compose } from './composition.js';

export { compose, type Composition } from './composition.js';

export interface Database {
  pool: Pool;
  url: string;
  close(): Promise<void>;
}

/** Connects to DATABASE_URL, or starts the embedded PostgreSQL under DATA_DIR, then migrates. */
export async function openDatabase(config: Config, log: (msg: string) => void = () => {}): Promise<Database> {
  let embedded: EmbeddedServer | undefined;
  let url = config.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedPostgres(config.dataDir, config.embeddedPgPort, log);
    url = embedded.url;
  }
  const pool = createPool(url);
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end();
    await embedded?.stop();
    throw error;
  }
  return {
    pool,
    url,
    close: async () => {
      await pool.end();
      await embedded?.stop();
    },
  };
}

export interface RunningService {
  app: App;
  baseUrl: string;
  stop(): Promise<void>;
}

/** `serve`: database, HTTP server and worker, with graceful shutdown on SIGINT/SIGTERM. */
export async function serve(config: Config, clock: Clock = systemClock): Promise<RunningService> {
  const db = await openDatabase(config);
  const { app, tasks, accounts } = await compose({ pool: db.pool, clock, config });
  const worker: Worker | undefined = config.runWorker ? await startWorker(db.pool, tasks, config.workerConcurrency) : undefined;
  // The billing run reschedules itself; this queues the first one (a no-op if one is pending).
  if (worker) await scheduleBillingRuns(db.pool);
  const listeningOn = await app.listen({ port: config.port, host: config.host });
  const baseUrl = config.publicBaseUrl ?? listeningOn;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await app.close(); // stops accepting, lets in-flight requests finish
      await worker?.stop(); // lets running jobs finish
      await db.close();
    })());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app.log.info({ signal }, 'shutting down');
      void stop().then(() => process.exit(0));
    });
  }
  await greetNewcomer(accounts, baseUrl);
  return { app, baseUrl, stop };
}

/**
 * On first start with an empty database there is no way in yet, so the service creates a
 * sandbox account and prints its keys once (to the terminal, never to the logs).
 */
async function greetNewcomer(accounts: AccountsService, baseUrl: string): Promise<void> {
  const lines = [`Billing service listening on ${baseUrl}`, `API reference: ${baseUrl}/docs  (OpenAPI: ${baseUrl}/api/v1/openapi.json)`];
  if (!(await accounts.hasAnyOrganization())) {
    const password = randomToken(16);
    const result = await accounts.bootstrap({ email: 'admin@example.com', password, organization: 'My organization' });
    lines.push(
      'First start: created organization "My organization" with user admin@example.com',
      `  password:            ${password}`,
      ...result.tenants.map((t) => `  ${t.environment.padEnd(10)} API key: ${t.api_key}`),
      'These keys are shown once. Try:',
      `  curl -H "Authorization: Bearer ${result.tenants.find((t) => t.environment === 'sandbox')?.api_key}" ${baseUrl}/api/v1/products`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
