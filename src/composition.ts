import type { Config } from './config/index.js';
import type { Clock } from './kernel/clock.js';
import { StartupError } from './kernel/errors.js';
import { createPlannedOncePool, type PlannedOncePool, type Pool } from './db/pool.js';
import { minorToDecimal, type CurrencyCode } from './kernel/money.js';
import { buildApp, type App } from './http/app.js';
import type { Authenticator } from './http/auth.js';
import type { TaskRegistry } from './jobs/runtime.js';
import type { Module } from './module.js';
import { createAccountsModule, type AccountsService } from './modules/accounts/index.js';
import { createCustomPropertiesModule } from './modules/custom-properties/index.js';
import { createCatalogModule } from './modules/catalog/index.js';
import { createMetricsModule, metricExists } from './modules/metrics/index.js';
import { createFeaturesModule } from './modules/features/index.js';
import { createCouponsModule } from './modules/coupons/index.js';
import { createPlansModule, planExists } from './modules/plans/index.js';
import { createAddOnsModule, existingAddOnIds, existingPriceIds } from './modules/addons/index.js';
import { createCustomersModule } from './modules/customers/index.js';
import { countSubscriptionsOfCustomer, createSubscriptionsModule, plansCatalog } from './modules/subscriptions/index.js';
import { createCheckoutModule } from './modules/checkout/index.js';
import { createUsageModule, storedCustomerIds } from './modules/usage/index.js';
import { createBatchJobsModule } from './modules/batch-jobs/index.js';
import { createEntitlementsModule } from './modules/entitlements/index.js';
import { createAlertsModule, type AlertsApi } from './modules/alerts/index.js';
import { accruedUsageCharges, createInvoicesModule, entityForCustomer, findInvoice, invoiceLinesFinalizedIn, invoicesChangedIn, nextInvoiceDateOf, paymentsRecordedIn, type Invoicing } from './modules/invoices/index.js';
import { countOpenCreditNotes, createCreditNotesModule, creditNotesChangedIn } from './modules/credit-notes/index.js';
import { accruedUsageOf, createCreditsModule } from './modules/credits/index.js';
import { createPaymentsModule, elementsKeyOf, type Payments } from './modules/payments/index.js';
import { createEmailsModule, sqlEmailPorts, type EmailPorts } from './modules/emails/index.js';
import { createWebhooksModule, type DeliveryService } from './modules/webhooks/index.js';
import { connectedAccountExists, createOAuthModule } from './modules/oauth/index.js';
import { createWebModule } from './modules/web/index.js';
import { createPortalModule } from './modules/portal/index.js';
import { createTestClocksModule, testClockTime } from './modules/test-clocks/index.js';
import { createExportsModule, type ExportsApi } from './modules/exports/index.js';
import { createSmtpMailer, type Mailer } from './adapters/email/mailer.js';

/** Everything the service is made of, wired once: config -> db -> services -> http + jobs. */
export interface Composition {
  app: App;
  tasks: TaskRegistry;
  accounts: AccountsService;
  /** Webhook delivery worker; tests call `webhooks.deliverDue()` after moving the clock. */
  webhooks: DeliveryService;
  /** Invoices, invoicing entities and their jobs; tests create invoices through `invoicing.invoices`. */
  invoicing: Invoicing;
  /** Payments: connections, methods, charging (tests reach its hooks and the sandbox provider). */
  payments: Payments;
  /** Usage alerts: tests and benchmarks wait for evaluations (`idle`) and run the period-boundary job. */
  alerts: AlertsApi;
  /** Data export: configurations and runs (tests run a run's steps one by one). */
  exports: ExportsApi;
  /** The entitlement check's connections (the bench counts and explains their statements). */
  plannedOnce: PlannedOncePool;
}

/** Connections of the entitlement check's planned-once reads: eight checks at once without waiting (one statement each). */
const PLANNED_ONCE_CONNECTIONS = 8;

export interface CompositionDeps {
  pool: Pool;
  clock: Clock;
  config: Config;
  /** Replace other modules' lookups for e-mails (tests provide a PDF this way). */
  emailPorts?: Partial<EmailPorts>;
  mailer?: Mailer;
}

/**
 * The composition root: one module after another, in the order of docs/architecture.md. Each
 * `createXModule` returns the same shape (src/module.ts); the app, the job worker and the outbox
 * relay are filled from the list. Modules never import a module later in the order; where an
 * earlier one needs a later one's data (catalog and features checking metrics, coupons checking
 * plans, customers counting subscriptions), the function is passed in here.
 */
export async function compose(deps: CompositionDeps): Promise<Composition> {
  const { pool, clock, config } = deps;
  // serve() resolves it (generated for the embedded default, required with DATABASE_URL); a caller that composes directly passes one.
  if (!config.secretKey) throw new StartupError('SECRET_KEY is not set');
  const base = { pool, clock };

  const accounts = createAccountsModule(base);
  // Typed custom properties (docs/custom-properties.md): every owning module checks its values through this one port.
  const customProperties = createCustomPropertiesModule(base);
  const properties = customProperties.api.port;
  const catalog = createCatalogModule({ ...base, metricExists, properties });
  const metrics = createMetricsModule(base);
  const features = createFeaturesModule({ ...base, metricExists });
  const coupons = createCouponsModule({ ...base, planExists });
  const plans = createPlansModule({ ...base, products: catalog.api, properties, addOns: { existingAddOnIds, existingPriceIds } });
  const addOns = createAddOnsModule({ ...base, products: catalog.api });
  const customers = createCustomersModule({
    ...base,
    properties,
    subscriptions: countSubscriptionsOfCustomer,
    // a customer's invoicing entity is checked (active, of the tenant) or defaulted by invoices, a later module
    entities: (db, tenantId, requested, field) => entityForCustomer(db, tenantId, clock, requested, field),
    // a customer's connected account must be one of the tenant's (oauth, a later module)
    connectedAccounts: connectedAccountExists,
    // a customer created on a test clock takes the clock's time (docs/test-clocks.md), as do the requests about it below
    testClockTime,
  });
  // the next invoice date shown on a subscription is the billing engine's, mapped by invoices
  const subscriptions = createSubscriptionsModule({ ...base, properties, catalog: plansCatalog, nextInvoiceDate: nextInvoiceDateOf, testClockTime });
  const checkout = createCheckoutModule({ ...base, properties, catalog: plansCatalog, secretKey: config.secretKey, publicBaseUrl: config.publicBaseUrl });
  // after usage is committed: usage alerts (a later module) evaluate those the events touch, and
  // invoices check the spend thresholds of those customers (called once composed)
  const usage = createUsageModule({
    ...base, metrics: metrics.api, findSubscription: subscriptions.api.usageScope, testClockTime,
    subscribers: [
      { name: 'alerts', stored: (tenantId, events) => alerts.api.eventsStored(tenantId, events) },
      { name: 'spend thresholds', stored: (tenantId, events) => invoices.api.thresholds.usageStored(tenantId, storedCustomerIds(events)) },
    ],
    onSubscriberError: (error, subscriber) => app.log.error({ err: error, subscriber }, 'a reaction to committed usage failed; the events are stored'),
  });
  // CSV imports (docs/batch-jobs.md): events through usage ingestion, customers through the customers service.
  // Bank lines are matched to invoices by invoices (a later module; called once composed).
  const batchJobs = createBatchJobsModule({
    ...base, ports: { ingestEvents: usage.api.ingest.ingest, createCustomer: customers.api.createCustomer, recordBankPayment: (tenantId, line) => invoices.api.bankTransfers.record(tenantId, line) },
  });
  // The entitlement check's reads, planned once per connection (db/pool.ts).
  const plannedOnce = createPlannedOncePool(pool, PLANNED_ONCE_CONNECTIONS);
  const entitlements = createEntitlementsModule({ ...base, catalog: plansCatalog, advanceDue: subscriptions.api.advanceDue, consumed: usage.api.consumed, plannedOnce });
  // Usage alerts (docs/credits-and-alerts.md): spend is the upcoming invoice's usage charges (invoices, a later module).
  // CREDIT_BALANCE alerts watch the credits module's projected balance (a later module; called once composed).
  const alerts = createAlertsModule({
    ...base,
    ports: {
      accruedSpend: (tenantId, subscriptionId) => accruedUsageCharges(invoices.api.billing, pool, tenantId, subscriptionId),
      projectedCreditBalance: async (db, tenantId, customerId, at) => {
        const balance = await credits.api.projectedCreditBalance(db, tenantId, customerId, at);
        return balance && minorToDecimal(balance.projected, balance.currency as CurrencyCode).toFixed();
      },
    },
    // a failed round is retried a second later; the failure is logged once the app (and its logger) exists
    onError: (error) => app.log.error({ err: error }, 'usage alert evaluation failed'),
  });
  // Each periodic billing run first moves subscriptions whose status is due (pending -> active...).
  // Invoice answers carry the hosted pay page's URL, built by payments (a later module; called once composed).
  const invoices = createInvoicesModule({
    ...base, properties, runBatchSize: config.billingRunBatchSize, beforeRun: subscriptions.api.advanceAllDue, openCreditNotes: countOpenCreditNotes, testClockTime,
    paymentUrl: (tenantId, invoice, origin) => payments.api.payUrlFor(pool, invoice, tenantId, origin),
    // prepaid credit grants pay at finalization before the cash balance (credits, a later module; called once composed)
    credits: { pay: (...args) => credits.api.prepaidCredits.pay(...args), holders: (...args) => credits.api.prepaidCredits.holders(...args), restore: (...args) => credits.api.prepaidCredits.restore(...args) },
    payUrlOf: (db, tenantId, invoice) => payments.api.payUrlFor(db, invoice, tenantId),
    subscriptionWhatIf: subscriptions.api,
  });
  const creditNotes = createCreditNotesModule({ ...base, properties });
  // Prepaid credits (docs/credits-and-alerts.md): the projected balance reads usage through invoices' upcoming invoices;
  // a balance that moves without usage (grant, top-up, void, consumption, expiry) has the customer's alerts evaluated.
  const credits = createCreditsModule({
    ...base, accruedUsage: accruedUsageOf(invoices.api.upcoming), testClockTime,
    balanceMoved: (tenantId, customerId) => alerts.api.evaluateCustomerSoon(tenantId, customerId),
  });
  // Payment providers and the charge of finalized invoices (docs/payments.md); credentials sealed with the service secret.
  const payments = createPaymentsModule({
    ...base, secretKey: config.secretKey, stripeApiBase: config.stripeApiBase, gocardlessApiBase: config.gocardlessApiBase, publicBaseUrl: config.publicBaseUrl, invoicePdf: invoices.api.invoices.pdf,
    checkout: checkout.api, invoicing: invoices.api,
  });
  // The invoice e-mail carries the invoice's pay link, issued in the relay's transaction.
  const emailPorts: EmailPorts = { ...sqlEmailPorts(pool, async (tenantId, id) => (await creditNotes.api.pdf(tenantId, id)).content), payUrl: async (db, tenantId, invoiceId) => {
    const invoice = await findInvoice(db, tenantId, invoiceId);
    return invoice ? payments.api.payUrlFor(db, invoice, tenantId) : null;
  }, ...deps.emailPorts };
  const emails = createEmailsModule({ ...base, mailer: deps.mailer ?? createSmtpMailer(config.smtp), ports: emailPorts });
  const webhooks = createWebhooksModule({
    ...base,
    timeoutMs: config.webhookTimeoutMs,
    allowPrivateUrls: config.webhookAllowPrivateUrls,
    secretKey: config.secretKey,
    outboxConsumers: () => modules.flatMap((m) => m.outboxConsumers ?? []),
  });
  // OAuth provider, connected accounts and the sign-in pages (docs/oauth.md).
  const oauth = createOAuthModule({ ...base, publicBaseUrl: config.publicBaseUrl, authenticateApiKey: accounts.api.authenticateApiKey });
  const web = createWebModule({
    ...base,
    secretKey: config.secretKey,
    secureCookies: config.publicBaseUrl?.startsWith('https:') ?? false,
    publicBaseUrl: config.publicBaseUrl,
    accounts: accounts.api,
    users: oauth.api.users,
    authorize: oauth.api.authorize,
    connect: oauth.api.connect,
  });
  // Customer portal (docs/portal.md): expiring, revocable tokens; usage through the usage API's code path.
  const portal = createPortalModule({
    ...base,
    publicBaseUrl: config.publicBaseUrl,
    advanceDue: subscriptions.api.advanceDue,
    subscriptionUsage: usage.api.queries.subscriptionUsage,
    invoices: invoices.api.invoices,
    testClockTime,
    // Pay links on unpaid invoices and the customer's payment methods, through payments' own service.
    payments: {
      payUrl: (tenantId, invoice, origin) => payments.api.payUrlFor(pool, invoice, tenantId, origin),
      providerName: async (tenantId) => (await payments.api.providers.forTenant(pool, tenantId))?.name ?? null,
      elementsKey: (tenantId) => elementsKeyOf(pool, payments.api.providers, tenantId),
      methods: payments.api.service,
      csrf: payments.api.pageCsrf,
    },
  });
  // Sandbox test clocks: their advance runs the clock-driven work of subscriptions and invoices for one clock's customers.
  const testClocks = createTestClocksModule({ ...base, work: { subscriptionsAt: subscriptions.api.atTestClock, invoicingAt: invoices.api.atTestClock, paymentsAt: payments.api.atTestClock } });

  // Data export (docs/export.md): reads invoices, credit notes, payments and usage through their owners' readers.
  const exportsModule = createExportsModule({
    ...base, secretKey: config.secretKey, folderRoot: config.exportFolderRoot,
    sources: {
      invoices: (...args) => invoicesChangedIn(pool, ...args),
      invoiceLines: (...args) => invoiceLinesFinalizedIn(pool, ...args),
      creditNotes: (...args) => creditNotesChangedIn(pool, ...args),
      payments: (...args) => paymentsRecordedIn(pool, ...args),
      usage: usage.api.daily,
    },
  });

  const modules: Module<unknown>[] = [
    accounts, customProperties, catalog, metrics, features, coupons, plans, addOns, customers, subscriptions, checkout,
    usage, batchJobs, entitlements, alerts, invoices, creditNotes, credits, payments, emails, webhooks, oauth, web, portal, testClocks, exportsModule,
  ];
  // The x-connected-account authenticator goes first: with that header an API key acts for the account.
  const authenticators: Authenticator[] = [oauth.api.connect.authenticateConnectedAccount, accounts.api.authenticateApiKey, oauth.api.tokens.authenticateAccessToken];
  const app = await buildApp({
    pool,
    clock,
    logLevel: config.logLevel,
    bodyLimitBytes: config.bodyLimitBytes,
    rateLimit: config.rateLimit,
    idempotencyKeyTtlHours: config.idempotencyKeyTtlHours,
    authenticators,
    // without an Authorization header, the dashboard's sign-in session (docs/dashboard-api.md)
    sessionAuthenticator: web.api.authenticateSession,
    routes: modules.flatMap((m) => m.routes ?? []),
  });
  const tasks: TaskRegistry = {};
  for (const [name, handler] of modules.flatMap((m) => Object.entries(m.tasks ?? {}))) {
    if (tasks[name]) throw new StartupError(`two modules define the job task ${name}`);
    tasks[name] = handler;
  }
  // Signing secrets stored in clear by an earlier version are sealed before anything serves (docs/webhooks-emails.md).
  await webhooks.api.sealStoredSecrets();
  // API keys are cached until revoked (a revocation NOTIFY evicts them in every process).
  await accounts.api.startKeyCache();
  app.addHook('onClose', async () => {
    await accounts.api.stopKeyCache();
    await plannedOnce.end();
  });
  return { app, tasks, accounts: accounts.api, webhooks: webhooks.api.delivery, invoicing: invoices.api, payments: payments.api, alerts: alerts.api, exports: exportsModule.api, plannedOnce };
}
