import { join, resolve } from 'node:path';
/** Typed configuration, parsed once at boot. Nothing else in src/ reads process.env. */
export interface Config {
  /** PostgreSQL URL; when absent the service starts its own embedded PostgreSQL under dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** Port of the embedded PostgreSQL server when the operator chose one; otherwise 54329, or a free port if that is taken. */
  embeddedPgPort: number | undefined;
  port: number;
  host: string;
  /** Public base URL used in links printed and e-mailed; by default the address the server listens on. */
  publicBaseUrl: string | undefined;
  logLevel: string;
  /** Requests allowed per route class (docs/api.md, "Rate limits"); 0 means unlimited. */
  rateLimit: {
    /** Usage ingestion (POST /api/v1/events...), per API key or OAuth grant. */
    ingestPerSecond: number;
    /** GET and HEAD API calls, per API key or OAuth grant. */
    readPerSecond: number;
    /** Other API calls, per API key or OAuth grant. */
    writePerSecond: number;
    /** Sign-in, sign-up and password forms, per client IP address and per e-mail address. */
    signinPerMinute: number;
    /** OAuth token, introspection and revocation, per client_id (per IP without one). */
    oauthTokenPerSecond: number;
    /** How often each process adds its counts to the shared table and reads the other processes' counts. */
    syncIntervalMs: number;
  };
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  idempotencyKeyTtlHours: number;
  /** Run the background worker in this process. */
  runWorker: boolean;
  workerConcurrency: number;
  /**
   * How often a worker process writes its heartbeat. A process silent for three of them is taken
   * for dead and its jobs are handed to the live workers, so a crash strands a job for at most a minute.
   */
  workerHeartbeatMs: number;
  /** Subscriptions the bill run takes in one transaction (`BILLING_RUN_BATCH_SIZE`, default 500). */
  billingRunBatchSize: number;
  /** Allow webhook URLs on private/loopback addresses for production tenants too. */
  webhookAllowPrivateUrls: boolean;
  /** How long one webhook attempt may take (connect, response and body) before it counts as failed. */
  webhookTimeoutMs: number;
  smtp: { host: string; port: number; secure: boolean; user?: string; password?: string; from: string };
  /** Base URL of the Stripe API (`STRIPE_API_BASE`); tests point it at a local fake. */
  stripeApiBase: string;
  /**
   * Base URL of the GoCardless API (`GOCARDLESS_API_BASE`). Empty: chosen by the access token
   * (`sandbox_...` → GoCardless's sandbox, else live); tests point it at a local fake.
   */
  gocardlessApiBase: string;
  /**
   * Secret that keys the HMACs of the sign-in pages (CSRF tokens) and the encryption of stored
   * credentials. Unset: the embedded default generates one and keeps it in DATA_DIR
   * (`resolveSecretKey`); with DATABASE_URL it is required.
   */
  secretKey: string | undefined;
  /**
   * The folder that data export FOLDER destinations must be inside (`EXPORT_FOLDER_ROOT`, default
   * `DATA_DIR/exports`), so a tenant's configuration cannot write anywhere else on the server.
   */
  exportFolderRoot: string;
}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new Error(`config: ${name} must be an integer, got '${raw}'`);
  return value;
}

function nonNegativeInt(env: Env, name: string, fallback: number): number {
  const value = int(env, name, fallback);
  if (value < 0) throw new Error(`config: ${name} must be 0 or more, got '${env[name]}'`);
  return value;
}

function positiveInt(env: Env, name: string, fallback: number): number {
  const value = int(env, name, fallback);
  if (value < 1) throw new Error(`config: ${name} must be 1 or more, got '${env[name]}'`);
  return value;
}

/** Defaults and their reasons: docs/api.md, "Rate limits". */
function rateLimits(env: Env): Config['rateLimit'] {
  // The single limit of every route was replaced by limits per route class: refuse the old
  // variables rather than start with limits the operator did not choose.
  for (const name of ['RATE_LIMIT_REQUESTS', 'RATE_LIMIT_WINDOW_MS']) {
    if (env[name] !== undefined && env[name] !== '') {
      throw new Error(
        `config: ${name} is no longer read; set RATE_LIMIT_INGEST_PER_SECOND, RATE_LIMIT_READ_PER_SECOND, RATE_LIMIT_WRITE_PER_SECOND, RATE_LIMIT_SIGNIN_PER_MINUTE or RATE_LIMIT_OAUTH_TOKEN_PER_SECOND (0 = unlimited) and unset ${name}`,
      );
    }
  }
  const syncIntervalMs = int(env, 'RATE_LIMIT_SYNC_INTERVAL_MS', 100);
  if (syncIntervalMs < 10) throw new Error(`config: RATE_LIMIT_SYNC_INTERVAL_MS must be 10 or more, got '${syncIntervalMs}'`);
  return {
    ingestPerSecond: nonNegativeInt(env, 'RATE_LIMIT_INGEST_PER_SECOND', 20_000),
    readPerSecond: nonNegativeInt(env, 'RATE_LIMIT_READ_PER_SECOND', 1_000),
    writePerSecond: nonNegativeInt(env, 'RATE_LIMIT_WRITE_PER_SECOND', 500),
    signinPerMinute: nonNegativeInt(env, 'RATE_LIMIT_SIGNIN_PER_MINUTE', 10),
    oauthTokenPerSecond: nonNegativeInt(env, 'RATE_LIMIT_OAUTH_TOKEN_PER_SECOND', 100),
    syncIntervalMs,
  };
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  return ['1', 'true', 'yes', 'on'].includes(raw.toLowerCase());
}

export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 8080);
  return {
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR || './.data',
    embeddedPgPort: env.EMBEDDED_PG_PORT ? int(env, 'EMBEDDED_PG_PORT', 0) : undefined,
    port,
    host: env.HOST || '127.0.0.1',
    publicBaseUrl: env.PUBLIC_BASE_URL || undefined,
    logLevel: env.LOG_LEVEL || 'info',
    rateLimit: rateLimits(env),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 5 * 1024 * 1024),
    idempotencyKeyTtlHours: int(env, 'IDEMPOTENCY_KEY_TTL_HOURS', 24),
    runWorker: bool(env, 'RUN_WORKER', true),
    workerConcurrency: int(env, 'WORKER_CONCURRENCY', 4),
    workerHeartbeatMs: int(env, 'WORKER_HEARTBEAT_MS', 10_000),
    billingRunBatchSize: positiveInt(env, 'BILLING_RUN_BATCH_SIZE', 500),
    webhookAllowPrivateUrls: bool(env, 'WEBHOOK_ALLOW_PRIVATE_URLS', false),
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000),
    smtp: {
      host: env.SMTP_HOST || '127.0.0.1',
      port: int(env, 'SMTP_PORT', 2525),
      secure: bool(env, 'SMTP_SECURE', false),
      user: env.SMTP_USER || undefined,
      password: env.SMTP_PASSWORD || undefined,
      from: env.SMTP_FROM || 'billing@localhost',
    },
    secretKey: env.SECRET_KEY || undefined,
    stripeApiBase: env.STRIPE_API_BASE || 'https://api.stripe.com',
    gocardlessApiBase: env.GOCARDLESS_API_BASE || '',
    exportFolderRoot: resolve(env.EXPORT_FOLDER_ROOT || join(env.DATA_DIR || './.data', 'exports')),
  };
}
