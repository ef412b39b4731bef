import { execFile, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';

const run = promisify(execFile);
const BIN = path.resolve('bin/billing.js');
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

function cli(args: string[], env: Record<string, string>) {
  return run('node', [BIN, ...args], { env: { ...process.env, ...env }, timeout: 60_000 });
}

// Each test spawns real processes, each loading the service through tsx: seconds apiece on a busy machine.
describe('command line', { timeout: 120_000 }, () => {
  it('bootstrap --json prints exactly the documented shape, and the keys work for api-keys commands', async () => {
    const env = { DATABASE_URL: db.url };
    const { stdout } = await cli(['bootstrap', '--email', 'cli@example.com', '--password', 'a-long-password', '--organization', 'CLI Org', '--json'], env);
    const result = JSON.parse(stdout);
    expect(Object.keys(result)).toEqual(['user', 'organization', 'tenants']);
    expect(result.user).toEqual({ id: expect.stringMatching(/^usr_/), email: 'cli@example.com' });
    expect(result.organization).toEqual({ id: expect.stringMatching(/^org_/), name: 'CLI Org' });
    expect(result.tenants.map((t: { environment: string }) => t.environment)).toEqual(['production', 'sandbox']);
    for (const tenant of result.tenants) expect(Object.keys(tenant)).toEqual(['id', 'environment', 'api_key']);

    const sandbox = result.tenants[1];
    const created = JSON.parse((await cli(['api-keys', 'create', '--tenant', sandbox.id, '--name', 'deploy', '--json'], env)).stdout);
    expect(created.key).toMatch(/^sk_sandbox_/);
    const listed = JSON.parse((await cli(['api-keys', 'list', '--tenant', sandbox.id, '--json'], env)).stdout);
    expect(listed.map((k: { name: string }) => k.name).sort()).toEqual(['default', 'deploy']);
    expect(JSON.stringify(listed)).not.toContain(created.key);
    const revoked = JSON.parse((await cli(['api-keys', 'revoke', '--tenant', sandbox.id, '--key', created.id, '--json'], env)).stdout);
    expect(revoked.revoked_at).not.toBeNull();
  });

  it('refuses a duplicate e-mail with a clear message and a non-zero exit', async () => {
    const env = { DATABASE_URL: db.url };
    await expect(cli(['bootstrap', '--email', 'cli@example.com', '--password', 'a-long-password', '--organization', 'Again'], env)).rejects.toMatchObject({
      stderr: expect.stringContaining('already exists'),
    });
  });

  it('serve starts, greets a newcomer with a key, answers, and shuts down gracefully', { timeout: 120_000 }, async () => {
    const fresh = await createTestDatabase();
    try {
      const child = spawn('node', [BIN, 'serve'], { env: { ...process.env, DATABASE_URL: fresh.url, SECRET_KEY: 'cli-test-secret', PORT: '0', LOG_LEVEL: 'silent', HOST: '127.0.0.1' } });
      // The greeting is for a person: standard error, the terminal.
      let out = '';
      child.stderr.on('data', (chunk) => (out += chunk));
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no greeting: ${out}`)), 90_000);
        child.stderr.on('data', () => out.includes('curl') && (clearTimeout(timer), resolve()));
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      expect(out).toMatch(/sandbox\s+API key: sk_sandbox_/);
      const baseUrl = /listening on (\S+)/.exec(out)![1]!;
      expect(out).toContain(`${baseUrl}/docs`);
      const key = /sandbox\s+API key: (\S+)/.exec(out)![1]!;
      const health = await fetch(`${baseUrl}/health`);
      expect(await health.json()).toEqual({ status: 'ok' });
      const products = await fetch(`${baseUrl}/api/v1/products`, { headers: { authorization: `Bearer ${key}` } });
      expect(products.status).toBe(200);
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      await fresh.drop();
    }
  });

  it('refuses to serve an external database without SECRET_KEY, in one line that says how to fix it', async () => {
    const failed = await cli(['serve'], { DATABASE_URL: db.url, SECRET_KEY: '', PORT: '0' }).then(() => undefined, (error: { code: number; stderr: string }) => error);
    expect(failed?.code).toBe(1);
    expect(failed?.stderr.trim()).toBe('error: SECRET_KEY must be set when DATABASE_URL is: every replica needs the same secret (generate one with: openssl rand -hex 32)');
  });

  it('help and --help list every command; an unknown command or option says so with the usage', async () => {
    for (const flag of ['help', '--help']) {
      const { stdout } = await cli([flag], {});
      for (const command of ['serve', 'migrate', 'bootstrap', 'api-keys create', 'api-keys list', 'api-keys revoke']) expect(stdout).toContain(command);
    }
    await expect(cli(['frobnicate'], {})).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("unknown command 'frobnicate'") });
    await expect(cli(['api-keys', 'list', '--bogus'], {})).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/Unknown option '--bogus'[\s\S]*Usage: billing/) });
  });

  it('migrate and bootstrap work against the embedded PostgreSQL when no DATABASE_URL is set', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'billing-cli-'));
    chmodSync(dataDir, 0o755);
    const env = { DATABASE_URL: '', DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(56000 + Math.floor(Math.random() * 1000)) };
    try {
      expect((await cli(['migrate'], env)).stdout).toContain('migrations applied');
      const { stdout } = await cli(['bootstrap', '--email', 'e@example.com', '--password', 'a-long-password', '--organization', 'Embedded', '--json'], env);
      expect(JSON.parse(stdout).organization.name).toBe('Embedded');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
