import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from './config/index.js';
import { systemClock, type Clock } from './kernel/clock.js';
import { StartupError } from './kernel/errors.js';
import { randomToken } from './kernel/secrets.js';
import { openDatabase } from './db/open.js';
import type { App } from './http/app.js';
import { startWorker, type Worker } from './jobs/runtime.js';
import type { AccountsService } from './modules/accounts/index.js';
import { scheduleBillingRuns } from './modules/invoices/index.js';
import { scheduleReconciliation } from './modules/payments/index.js';
import { schedulePeriodBoundaries } from './modules/alerts/index.js';
import { scheduleExpirySweep } from './modules/credits/index.js';
import { compose } from './composition.js';

export { compose, type Composition } from './composition.js';
export { openDatabase, type Database } from './db/open.js';

export interface RunningService {
  app: App;
  baseUrl: string;
  stop(): Promise<void>;
}

/** `serve`: database, HTTP server and worker, with graceful shutdown on SIGINT/SIGTERM. */
export async function serve(config: Config, clock: Clock = systemClock): Promise<RunningService> {
  const secretKey = resolveSecretKey(config);
  const db = await openDatabase(config);
  const { app, tasks, accounts } = await compose({ pool: db.pool, clock, config: { ...config, secretKey } });
  const worker: Worker | undefined = config.runWorker ? await startWorker(db.pool, tasks, { concurrency: config.workerConcurrency, heartbeatMs: config.workerHeartbeatMs, log: app.log }) : undefined;
  // The billing run reschedules itself; this queues the first one (a no-op if one is pending).
  if (worker) await scheduleBillingRuns(db.pool);
  // Charges a crash left without our record of the answer are reconciled at start, then every minute.
  if (worker) await scheduleReconciliation(db.pool);
  // Usage alerts resolve at their period's end even without new events (reschedules itself every minute).
  if (worker) await schedulePeriodBoundaries(db.pool);
  // Credit grants past their expiry get their EXPIRY entries (reschedules itself every minute).
  if (worker) await scheduleExpirySweep(db.pool);
  const firstAccount = await createFirstAccount(accounts);
  let listeningOn: string;
  try {
    listeningOn = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await worker?.stop();
    await db.close();
    // The account exists now and its keys are shown only once: show them before giving up.
    if (firstAccount) greet(undefined, firstAccount);
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new StartupError(`port ${config.port} on ${config.host} is in use by another program (another billing service?): stop it, or set PORT`);
    }
    throw error;
  }
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
  greet(baseUrl, firstAccount);
  return { app, baseUrl, stop };
}

/**
 * SECRET_KEY, or for the embedded default a random one generated on first start and kept in
 * DATA_DIR (beside the data it protects). An external database is shared by replicas, which must
 * agree on the secret, so there it has to be given.
 */
export function resolveSecretKey(config: Config): string {
  if (config.secretKey) return config.secretKey;
  if (config.databaseUrl) {
    throw new StartupError('SECRET_KEY must be set when DATABASE_URL is: every replica needs the same secret (generate one with: openssl rand -hex 32)');
  }
  const file = path.resolve(config.dataDir, 'secret-key');
  if (!existsSync(file)) {
    mkdirSync(config.dataDir, { recursive: true });
    try {
      writeFileSync(file, `${randomToken(48)}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process started at the same instant and wrote it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return readFileSync(file, 'utf8').trim();
}

interface FirstStartAccount {
  password: string;
  tenants: { environment: string; api_key: string }[];
}

/**
 * On first start with an empty database there is no way in yet, so the service creates an
 * account before it listens (keys work from the first answer of /health) and prints its keys once.
 */
async function createFirstAccount(accounts: AccountsService): Promise<FirstStartAccount | undefined> {
  if (await accounts.hasAnyOrganization()) return undefined;
  const password = randomToken(16);
  const result = await accounts.bootstrap({ email: 'admin@example.com', password, organization: 'My organization' });
  return { password, tenants: result.tenants };
}

/** The greeting is for a person: standard error, the terminal; standard output carries only the JSON log lines. */
function greet(baseUrl: string | undefined, account: FirstStartAccount | undefined): void {
  const lines = baseUrl
    ? [`Billing service listening on ${baseUrl}`, `API reference: ${baseUrl}/docs  (OpenAPI: ${baseUrl}/api/v1/openapi.json)`]
    : ['The server could not listen (see below); the account it created is kept, and its keys work once it does.'];
  if (account) {
    lines.push(
      'First start: created organization "My organization" with user admin@example.com',
      `  password:            ${account.password}`,
      ...account.tenants.map((t) => `  ${t.environment.padEnd(10)} API key: ${t.api_key}`),
      'These keys are shown once. Try:',
      `  curl -H "Authorization: Bearer ${account.tenants.find((t) => t.environment === 'sandbox')?.api_key}" ${baseUrl ?? 'http://HOST:PORT'}/api/v1/products`,
    );
  }
  process.stderr.write(`${lines.join('\n')}\n`);
}
