/** Typed configuration, parsed once at boot. Nothing else in src/ reads process.env. */
export interface Config {
  /** PostgreSQL URL; when absent the service starts its own embedded PostgreSQL under dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** Port of the embedded PostgreSQL server. */
  embeddedPgPort: number;
  port: number;
  host: string;
  /** Public base URL used in links printed and e-mailed; by default the address the server listens on. */
  publicBaseUrl: string | undefined;
  logLevel: string;
  rateLimit: { requestsPerWindow: number; windowMs: number };
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  idempotencyKeyTtlHours: number;
  /** Run the background worker in this process. */
  runWorker: boolean;
  workerConcurrency: number;
  /** Allow webhook URLs on private/loopback addresses for production tenants too. */
  webhookAllowPrivateUrls: boolean;
  /** How long one webhook attempt may take (connect, response and body) before it counts as failed. */
  webhookTimeoutMs: number;
  smtp: { host: string; port: number; secure: boolean; user?: string; password?: string; from: string };
  /** Secret that keys the HMAC of API keys and tokens. */
  secretKey: string;
}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new Error(`config: ${name} must be an integer, got '${raw}'`);
  return value;
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
    embeddedPgPort: int(env, 'EMBEDDED_PG_PORT', 54329),
    port,
    host: env.HOST || '127.0.0.1',
    publicBaseUrl: env.PUBLIC_BASE_URL || undefined,
    logLevel: env.LOG_LEVEL || 'info',
    rateLimit: {
      requestsPerWindow: int(env, 'RATE_LIMIT_REQUESTS', 1000),
      windowMs: int(env, 'RATE_LIMIT_WINDOW_MS', 1000),
    },
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 5 * 1024 * 1024),
    idempotencyKeyTtlHours: int(env, 'IDEMPOTENCY_KEY_TTL_HOURS', 24),
    runWorker: bool(env, 'RUN_WORKER', true),
    workerConcurrency: int(env, 'WORKER_CONCURRENCY', 4),
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
    secretKey: env.SECRET_KEY || 'dev-only-secret-change-me',
  };
}
