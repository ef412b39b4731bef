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
import { createFeaturesService, featureRoutes } from './modules/features/index.js';
import { createCouponsService, couponRoutes } from './modules/coupons/index.js';
import { createPlansService, planExists, planRoutes } from './modules/plans/index.js';
import { createAddOnsService, addOnRoutes } from './modules/addons/index.js';
import { createCustomersService, customerRoutes } from './modules/customers/index.js';
import { createSubscriptionsService, subscriptionRoutes, plansCatalog } from './modules/subscriptions/index.js';
import { checkoutRoutes, createCheckoutService } from './modules/checkout/index.js';
import { createEntitlementsService, entitlementRoutes } from './modules/entitlements/index.js';
import { createDeliveryService, createEndpointsService, DELIVER_DUE_TASK, relayOutbox, webhookRoutes, type DeliveryService } from './modules/webhooks/index.js';
import { postJson } from './adapters/http/post-json.js';
import { createEmailService, emailRoutes, SEND_EMAIL_TASK, sqlEmailPorts, type EmailPorts } from './modules/emails/index.js';
import { createSmtpMailer, type Mailer } from './adapters/email/mailer.js';
import { createInvoicing, scheduleBillingRuns, type Invoicing } from './modules/invoices/index.js';
import { createCreditNotes } from './modules/credit-notes/index.js';
import { createIngestService, createUsageQueryService, customerMetricUsage, metricSource, usageRoutes, usageTasks } from './modules/usage/index.js';
import { connectedAccountRoutes, createAuthorizeService, createConnectService, createOAuthAppsService, createTokenService, createUsersService, oauthAppRoutes, oauthTokenRoutes } from './modules/oauth/index.js';
import { createSessions, webRoutes } from './modules/web/index.js';

/** Everything the service is made of, wired once: config -> db -> services -> http + jobs. */
export interface Composition {
  app: App;
  tasks: TaskRegistry;
  accounts: AccountsService;
  /** Webhook delivery worker; tests call `webhooks.deliverDue()` after moving the clock. */
  webhooks: DeliveryService;
  /** Invoices, invoicing entities and their jobs; tests create invoices through `invoicing.invoices`. */
  invoicing: Invoicing;
}

export async function compose(deps: {
  pool: Pool;
  clock: Clock;
  config: Config;
  /** Replace third parties or other modules' lookups for e-mails (tests provide a PDF this way). */
  emailPorts?: Partial<EmailPorts>;
  mailer?: Mailer;
}): Promise<Composition> {
  const { pool, clock, config } = deps;
  const accounts = createAccountsService({ pool, clock });
  const metrics = createMetricsService({ pool, clock });
  const features = createFeaturesService({ pool, clock, metricExists });
  const coupons = createCouponsService({ pool, clock, planExists });
  const products = createProductsService({ pool, clock, metricExists });
  const plans = createPlansService({ pool, clock, products });
  const addOns = createAddOnsService({ pool, clock, products });
  const subscriptions = createSubscriptionsService({ pool, clock, catalog: plansCatalog });
  const customers = createCustomersService({ pool, clock, subscriptions: subscriptions.countForCustomer });
  const webhookEndpoints = createEndpointsService({ pool, clock, allowPrivateUrls: config.webhookAllowPrivateUrls });
  const webhooks = createDeliveryService({
    pool,
    clock,
    wallClock: systemClock,
    post: postJson,
    timeoutMs: config.webhookTimeoutMs,
    allowPrivateUrls: config.webhookAllowPrivateUrls,
  });
  const emails = createEmailService({ pool, clock, mailer: deps.mailer ?? createSmtpMailer(config.smtp), ports: { ...sqlEmailPorts(pool), ...deps.emailPorts } });

  // OAuth provider, connected accounts and the sign-in pages (docs/oauth.md).
  const oauthApps = createOAuthAppsService({ pool, clock });
  const oauthTokens = createTokenService({ pool, clock });
  const connect = createConnectService({ pool, clock, publicBaseUrl: config.publicBaseUrl, authenticateApiKey: accounts.authenticateApiKey });
  const web = {
    sessions: createSessions({ pool, clock, secretKey: config.secretKey, secureCookies: config.publicBaseUrl?.startsWith('https:') ?? false }),
    users: createUsersService({ pool, clock }),
    authorize: createAuthorizeService({ pool, clock }),
    connect,
  };

  // The x-connected-account authenticator goes first: with that header an API key acts for the account.
  const authenticators: Authenticator[] = [connect.authenticateConnectedAccount, accounts.authenticateApiKey, oauthTokens.authenticateAccessToken];
  const routes: RouteModule[] = [accountsRoutes(accounts), productRoutes(products), metricRoutes(metrics), featureRoutes(features), couponRoutes(coupons), planRoutes(plans), addOnRoutes(addOns), customerRoutes(customers), subscriptionRoutes(subscriptions), checkoutRoutes(createCheckoutService({ pool, clock, catalog: plansCatalog })), webhookRoutes(webhookEndpoints), emailRoutes(emails), oauthAppRoutes(oauthApps), connectedAccountRoutes(connect), oauthTokenRoutes(oauthTokens), webRoutes(web)];
  const tasks: TaskRegistry = {
    // Fans new outbox events out to webhook deliveries (and e-mails), each exactly once.
    'outbox.dispatch': async () => {
      await relayOutbox(pool, [webhooks.outboxConsumer, emails.outboxConsumer]);
    },
    [DELIVER_DUE_TASK]: async () => {
      await webhooks.deliverDue();
    },
    [SEND_EMAIL_TASK]: emails.send,
  };

  // Usage metering: event ingestion, usage queries, hourly rollups.
  const usageMetrics = metricSource(pool, metrics);
  routes.push(usageRoutes(createIngestService({ pool, clock, metrics: usageMetrics }), createUsageQueryService({ pool, metrics: usageMetrics, findSubscription: subscriptions.usageScope })));
  // Effective entitlements: metered consumption is read through the usage module (wired here, no import cycle).
  routes.push(entitlementRoutes(createEntitlementsService({
    pool, clock, catalog: plansCatalog, advanceDue: subscriptions.advanceDue,
    consumed: async (tenantId, q) => (await customerMetricUsage(pool, tenantId, { customerId: q.customerId, metricId: q.metricId, periodStart: q.from, periodEnd: q.to }))?.totalValue,
  })));
  Object.assign(tasks, usageTasks({ pool, clock, metrics: usageMetrics }));

  // Invoicing: invoices, invoicing entities, PDFs, grace-period finalizer.
  const invoicing = createInvoicing({ pool, clock });
  routes.push(invoicing.routes, createCreditNotes({ pool, clock }).routes);
  Object.assign(tasks, invoicing.tasks);

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
  return { app, tasks, accounts, webhooks, invoicing };
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
