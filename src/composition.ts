import type { Config } from './config/index.js';
import { systemClock, type Clock } from './kernel/clock.js';
import { StartupError } from './kernel/errors.js';
import type { Pool } from './db/pool.js';
import { buildApp, type App, type RouteModule } from './http/app.js';
import type { Authenticator } from './http/auth.js';
import type { TaskRegistry } from './jobs/runtime.js';
import { createAccountsService, accountsRoutes, type AccountsService } from './modules/accounts/index.js';
import { createProductsService, productRoutes } from './modules/catalog/index.js';
import { createMetricsService, metricExists, metricRoutes } from './modules/metrics/index.js';
import { createFeaturesService, featureRoutes } from './modules/features/index.js';
import { createCouponsService, couponRoutes } from './modules/coupons/index.js';
import { createPlansService, planExists, planRoutes } from './modules/plans/index.js';
import { createAddOnsService, addOnRoutes, existingAddOnIds, existingPriceIds } from './modules/addons/index.js';
import { createCustomersService, customerRoutes } from './modules/customers/index.js';
import { createSubscriptionsService, subscriptionRoutes, plansCatalog } from './modules/subscriptions/index.js';
import { checkoutRoutes, createCheckoutService } from './modules/checkout/index.js';
import { createEntitlementsService, entitlementRoutes } from './modules/entitlements/index.js';
import { createDeliveryService, createEndpointsService, DELIVER_DUE_TASK, relayOutbox, webhookRoutes, type DeliveryService } from './modules/webhooks/index.js';
import { postJson } from './adapters/http/post-json.js';
import { createEmailService, emailRoutes, SEND_EMAIL_TASK, sqlEmailPorts, type EmailPorts } from './modules/emails/index.js';
import { createSmtpMailer, type Mailer } from './adapters/email/mailer.js';
import { createInvoicing, entityForCustomer, type Invoicing } from './modules/invoices/index.js';
import { countOpenCreditNotes, createCreditNotes } from './modules/credit-notes/index.js';
import { createIngestService, createUsageQueryService, customerMetricUsage, metricSource, usageRoutes, usageTasks } from './modules/usage/index.js';
import { connectedAccountRoutes, createAuthorizeService, createConnectService, createOAuthAppsService, createTokenService, createUsersService, oauthAppRoutes, oauthTokenRoutes } from './modules/oauth/index.js';
import { createSessions, webRoutes } from './modules/web/index.js';
import { createBatchJobs } from './modules/batch-jobs/index.js';
import { createPortalTokensService, createPortalViewsService, portalRoutes } from './modules/portal/index.js';

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

export interface CompositionDeps {
  pool: Pool;
  clock: Clock;
  config: Config;
  /** Replace other modules' lookups for e-mails (tests provide a PDF this way). */
  emailPorts?: Partial<EmailPorts>;
  mailer?: Mailer;
}

/**
 * The composition root. Modules never import a module later in the order of
 * docs/architecture.md; where an earlier one needs a later one's data (coupons checking plans,
 * entitlements reading usage, usage reading subscriptions), the function is passed in here.
 */
export async function compose(deps: CompositionDeps): Promise<Composition> {
  const { pool, clock, config } = deps;
  // serve() resolves it (generated for the embedded default, required with DATABASE_URL); a caller that composes directly passes one.
  if (!config.secretKey) throw new StartupError('SECRET_KEY is not set');
  const secretKey = config.secretKey;

  // Accounts and catalog.
  const accounts = createAccountsService({ pool, clock });
  const metrics = createMetricsService({ pool, clock });
  const features = createFeaturesService({ pool, clock, metricExists });
  const coupons = createCouponsService({ pool, clock, planExists });
  const products = createProductsService({ pool, clock, metricExists });
  const plans = createPlansService({ pool, clock, products, addOns: { existingAddOnIds, existingPriceIds } });
  const addOns = createAddOnsService({ pool, clock, products });

  // Customers, subscriptions, checkout.
  const subscriptions = createSubscriptionsService({ pool, clock, catalog: plansCatalog });
  const customers = createCustomersService({
    pool, clock, subscriptions: subscriptions.countForCustomer,
    // a customer's invoicing entity is checked (active, of the tenant) or defaulted by invoices, a later module
    entities: (db, tenantId, requested, field) => entityForCustomer(db, tenantId, clock, requested, field),
  });
  const checkout = createCheckoutService({ pool, clock, catalog: plansCatalog });

  // Usage metering, and the entitlements that read it.
  const usageMetrics = metricSource(pool, metrics);
  const ingest = createIngestService({ pool, clock, metrics: usageMetrics });
  const usageQueries = createUsageQueryService({ pool, metrics: usageMetrics, findSubscription: subscriptions.usageScope });
  const entitlements = createEntitlementsService({
    pool,
    clock,
    catalog: plansCatalog,
    advanceDue: subscriptions.advanceDue,
    consumed: async (tenantId, q) =>
      (await customerMetricUsage(pool, tenantId, { customerId: q.customerId, metricId: q.metricId, periodStart: q.from, periodEnd: q.to }))?.totalValue,
  });

  // Invoicing and credit notes.
  // Each periodic billing run first moves subscriptions whose status is due (pending -> active...).
  const invoicing = createInvoicing({ pool, clock, beforeRun: subscriptions.advanceAllDue, openCreditNotes: countOpenCreditNotes });
  const creditNotes = createCreditNotes({ pool, clock });

  // CSV imports (docs/batch-jobs.md): events through usage ingestion, customers through the customers service.
  const batchJobs = createBatchJobs({ pool, clock, ports: { ingestEvents: ingest.ingest, createCustomer: customers.createCustomer } });

  // Outbound: webhooks and customer e-mails, fed by the outbox.
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
    sessions: createSessions({ pool, clock, secretKey, secureCookies: config.publicBaseUrl?.startsWith('https:') ?? false }),
    users: createUsersService({ pool, clock }),
    authorize: createAuthorizeService({ pool, clock }),
    connect,
    accounts,
  };

  // Customer portal (docs/portal.md): expiring, revocable tokens; usage through the usage API's code path.
  const portalTokens = createPortalTokensService({ pool, clock, publicBaseUrl: config.publicBaseUrl });
  const portalViews = createPortalViewsService({ pool, clock, advanceDue: subscriptions.advanceDue, subscriptionUsage: usageQueries.subscriptionUsage, invoices: invoicing.invoices });

  // The x-connected-account authenticator goes first: with that header an API key acts for the account.
  const authenticators: Authenticator[] = [connect.authenticateConnectedAccount, accounts.authenticateApiKey, oauthTokens.authenticateAccessToken];
  const routes: RouteModule[] = [
    accountsRoutes(accounts),
    productRoutes(products),
    metricRoutes(metrics),
    featureRoutes(features),
    couponRoutes(coupons),
    planRoutes(plans),
    addOnRoutes(addOns),
    customerRoutes(customers),
    subscriptionRoutes(subscriptions),
    checkoutRoutes(checkout),
    usageRoutes(ingest, usageQueries),
    batchJobs.routes,
    entitlementRoutes(entitlements),
    invoicing.routes,
    creditNotes.routes,
    webhookRoutes(webhookEndpoints),
    emailRoutes(emails),
    oauthAppRoutes(oauthApps),
    connectedAccountRoutes(connect),
    oauthTokenRoutes(oauthTokens),
    webRoutes(web),
    portalRoutes(portalTokens, portalViews),
  ];
  const tasks: TaskRegistry = {
    // Fans new outbox events out to webhook deliveries and e-mails, each exactly once.
    'outbox.dispatch': async () => {
      await relayOutbox(pool, [webhooks.outboxConsumer, emails.outboxConsumer]);
    },
    [DELIVER_DUE_TASK]: async () => {
      await webhooks.deliverDue();
    },
    [SEND_EMAIL_TASK]: emails.send,
    ...usageTasks({ pool, clock, metrics: usageMetrics }),
    ...invoicing.tasks,
    ...batchJobs.tasks,
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
  // API keys are cached until revoked (a revocation NOTIFY evicts them in every process).
  await accounts.startKeyCache();
  app.addHook('onClose', async () => {
    await accounts.stopKeyCache();
  });
  return { app, tasks, accounts, webhooks, invoicing };
}
