// Real `billing serve` processes for the reliability tests: the binary users run, on a test database.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

const BIN = new URL('../../bin/billing.js', import.meta.url).pathname;
export const SECRET_KEY = 'reliability-test-secret-key-0123456789';

export interface ServingProcess {
  child: ChildProcessWithoutNullStreams;
  baseUrl: string;
  /** What the process wrote to standard error so far. */
  stderr(): string;
}

/**
 * Starts `billing serve` (HTTP server and worker) on `databaseUrl` and waits for its greeting.
 * Heartbeats of one second stand for the default ten, so a killed process's jobs are freed in seconds.
 */
export async function startServe(databaseUrl: string, dataDir: string, extraEnv: Record<string, string> = {}): Promise<ServingProcess> {
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    SECRET_KEY,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WORKER_HEARTBEAT_MS: '1000',
    RATE_LIMIT_READ_PER_SECOND: '0',
    RATE_LIMIT_WRITE_PER_SECOND: '0',
    RATE_LIMIT_INGEST_PER_SECOND: '0',
    ...extraEnv,
  };
  const child = spawn('node', [BIN, 'serve'], { env });
  let stderr = '';
  child.stdout.resume();
  child.stderr.on('data', (chunk) => (stderr += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no greeting in 150 s: ${stderr}`)), 150_000);
    child.stderr.on('data', () => /listening on \S+/.test(stderr) && (clearTimeout(timer), resolve()));
    child.on('exit', (code, signal) => reject(new Error(`exited ${code ?? signal}: ${stderr}`)));
  });
  return { child, baseUrl: /listening on (\S+)/.exec(stderr)![1]!, stderr: () => stderr };
}

/** SIGKILL (kill -9): no shutdown hook runs, open transactions are left to PostgreSQL to roll back. */
export async function killHard(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
