import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The README's `npm start` path, as a stranger runs it: real processes on the embedded
 * PostgreSQL, in a data folder of mode 700 (as root, the case of a clone under a private home).
 */
const BIN = path.resolve('bin/billing.js');
const run = promisify(execFile);
// A private folder, as `mktemp -d` makes it.
const dataDir = mkdtempSync(path.join(tmpdir(), 'billing-start-'));
const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', SECRET_KEY: '', EMBEDDED_PG_PORT: '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' };
let relocatedTo: string | undefined;
const started: ChildProcessWithoutNullStreams[] = [];

interface Server_ {
  child: ChildProcessWithoutNullStreams;
  baseUrl: string;
  stderr: () => string;
  stdout: () => string;
}

async function serve(): Promise<Server_> {
  const child = spawn('node', [BIN, 'serve'], { env });
  started.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no greeting in 120 s: ${stderr}`)), 120_000);
    child.stderr.on('data', () => /API reference/.test(stderr) && (clearTimeout(timer), resolve()));
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  relocatedTo ??= /keeps this folder's data in (\S+)/.exec(stderr)?.[1];
  return { child, baseUrl: /listening on (\S+)/.exec(stderr)![1]!, stderr: () => stderr, stdout: () => stdout };
}

function cli(args: string[], extra: Record<string, string> = {}) {
  return run('node', [BIN, ...args], { env: { ...env, ...extra }, timeout: 60_000 });
}

function exitOf(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode) : child.on('exit', resolve)));
}

function listen(port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

afterAll(async () => {
  // A failed test must not leave a server (and its PostgreSQL) behind.
  for (const child of started) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exitOf(child);
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
  if (relocatedTo) rmSync(relocatedTo, { recursive: true, force: true });
});

describe('npm start on the embedded PostgreSQL', () => {
  let first: Server_;
  let key: string;

  it('starts in a private folder, greets on standard error and keeps standard output to JSON log lines', async () => {
    first = await serve();
    key = /sandbox\s+API key: (\S+)/.exec(first.stderr())![1]!;
    if (process.getuid?.() === 0) expect(relocatedTo).toMatch(/^\/var\/lib\/tally-billing\/clusters\//);
    expect(await (await fetch(`${first.baseUrl}/health`)).json()).toEqual({ status: 'ok' });
    expect((await fetch(`${first.baseUrl}/api/v1/products`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    const lines = first.stdout().trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(first.stdout()).not.toContain('API key');
  }, 180_000);

  it('lets CLI commands work beside the running server, on its database', async () => {
    const tenant = (await (await fetch(`${first.baseUrl}/api/v1/tenant`, { headers: { authorization: `Bearer ${key}` } })).json()) as { id: string };
    const listed = JSON.parse((await cli(['api-keys', 'list', '--tenant', tenant.id, '--json'])).stdout) as { name: string }[];
    expect(listed.map((k) => k.name)).toEqual(['default']);
    const created = JSON.parse((await cli(['api-keys', 'create', '--tenant', tenant.id, '--name', 'beside', '--json'])).stdout) as { key: string };
    expect((await fetch(`${first.baseUrl}/api/v1/products`, { headers: { authorization: `Bearer ${created.key}` } })).status).toBe(200);
    // The CLI left the server's PostgreSQL running.
    expect(await (await fetch(`${first.baseUrl}/ready`)).json()).toEqual({ status: 'ready' });
  }, 180_000);

  it('logs every request with request_id and never a credential', async () => {
    const portalToken = `pt_${'A1b2C3d4E5'.repeat(4)}`;
    const onboardingToken = `cl_${'Z9y8X7w6V5'.repeat(4)}`;
    const password = 'correct-horse-battery-staple';
    await fetch(`${first.baseUrl}/portal/customer?token=${portalToken}&lang=en`);
    await fetch(`${first.baseUrl}/connect/onboarding/${onboardingToken}`);
    await fetch(`${first.baseUrl}/signin`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `email=owner%40example.com&password=${password}` });
    await fetch(`${first.baseUrl}/api/v1/products`, { headers: { authorization: `Bearer ${key}`, cookie: 'sid=cookie-secret-value' } });
    await expect.poll(() => first.stdout(), { timeout: 10_000 }).toContain('/api/v1/products');
    const log = first.stdout();
    for (const secret of [portalToken, onboardingToken, password, key, 'cookie-secret-value']) expect(log).not.toContain(secret);
    const requestLines = log.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.req);
    expect(requestLines.length).toBeGreaterThanOrEqual(4);
    for (const line of requestLines) expect(line).toMatchObject({ request_id: expect.any(String), res: { statusCode: expect.any(Number) }, responseTime: expect.any(Number) });
    // One line per request, written when it is answered.
    const requestIds = requestLines.map((line) => line.request_id);
    expect(new Set(requestIds).size).toBe(requestIds.length);
    expect(log).toContain('token=[REDACTED]&lang=en');
    expect(log).toContain('/connect/onboarding/[REDACTED]');
  }, 30_000);

  it('starts again after a SIGKILL: the PostgreSQL left behind is stopped and the data kept', async () => {
    first.child.kill('SIGKILL');
    await exitOf(first.child);
    const second = await serve();
    expect(second.stderr()).toMatch(/stopping the PostgreSQL left running/);
    expect(second.stderr()).not.toContain('First start');
    expect((await fetch(`${second.baseUrl}/api/v1/products`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    second.child.kill('SIGTERM');
    expect(await exitOf(second.child)).toBe(0);
    // A clean stop leaves nothing running: the next command starts (and stops) its own cluster.
    const { stderr } = await cli(['migrate']);
    expect(stderr).not.toMatch(/left running/);
  }, 240_000);

  it('answers a taken EMBEDDED_PG_PORT with one line that says how to fix it, and falls back from a taken default', async () => {
    const blocker = (await listen(0))!;
    const port = (blocker.address() as { port: number }).port;
    const failed = await cli(['migrate'], { EMBEDDED_PG_PORT: String(port) }).then(() => undefined, (error: { code: number; stderr: string }) => error);
    blocker.close();
    expect(failed?.code).toBe(1);
    // (As root, a line saying where the cluster lives comes first.)
    expect(failed?.stderr).not.toMatch(/^\s+at /m);
    expect(failed?.stderr.trim().split('\n').pop()).toBe(`error: EMBEDDED_PG_PORT ${port} is in use by another program: choose a free port, or unset EMBEDDED_PG_PORT to let the service pick one`);

    // The HTTP port taken: one line, and the PostgreSQL it started is stopped again.
    const httpBlocker = (await listen(0))!;
    const httpPort = (httpBlocker.address() as { port: number }).port;
    const refused = await cli(['serve'], { PORT: String(httpPort) }).then(() => undefined, (error: { code: number; stderr: string }) => error);
    httpBlocker.close();
    expect(refused?.code).toBe(1);
    expect(refused?.stderr).not.toMatch(/^\s+at /m);
    expect(refused?.stderr.trim().split('\n').pop()).toBe(`error: port ${httpPort} on 127.0.0.1 is in use by another program (another billing service?): stop it, or set PORT`);
    expect((await cli(['migrate'])).stderr).not.toMatch(/left running/);

    // The default port: hold it (unless something already does) and start anyway.
    const held = await listen(54329);
    try {
      const { stdout, stderr } = await cli(['migrate']);
      expect(stdout).toContain('migrations applied');
      expect(stderr).toMatch(/port 54329 is in use by another program; the embedded PostgreSQL listens on \d+/);
    } finally {
      held?.close();
    }
  }, 240_000);

  it('keeps the generated secret key in the data folder, readable by its owner only', async () => {
    const { statSync, readFileSync } = await import('node:fs');
    const file = path.join(dataDir, 'secret-key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toMatch(/^[A-Za-z0-9]{48}$/);
  });
});
