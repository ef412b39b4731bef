import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { drainJobs } from '../../src/jobs/runtime.js';
import { ManualClock, systemClock, type Clock } from '../../src/kernel/clock.js';
import { compose, type Composition } from '../../src/main.js';
import { BILLING_RUN_TASK } from '../../src/modules/invoices/index.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { answerPattern, docSteps, shBlocksContaining, ShellSession, variablesIn, type DocStep } from './runnable-doc.js';

/**
 * docs/quickstart.md and the README's curl example, run as a reader runs them: curl in bash
 * against the real service listening on a loopback port. Between two commands the test does what
 * the service's worker would have done by then: a billing run, and every job due (rollups, PDFs).
 */

// serve() generates the secret key on first start with the embedded database; compose() wants it given.
const config = { ...loadConfig({}), logLevel: 'silent' as const, secretKey: 'quickstart-test-secret-key' };
const readDoc = (path: string) => readFile(new URL(`../../${path}`, import.meta.url), 'utf8');

interface LiveService {
  db: TestDatabase;
  service: Composition;
  baseUrl: string;
  apiKey: string;
  workdir: string;
  shell: ShellSession;
}

/**
 * A `date` that answers for `now` when asked for the current time: the page computes its dates
 * with `date`, and they must agree with the service's clock.
 */
async function fakeDate(dir: string, now: Date): Promise<void> {
  const realDate = execFileSync('bash', ['-c', 'command -v date'], { encoding: 'utf8' }).trim();
  const script = `#!/bin/sh
for arg in "$@"; do case "$arg" in -d*|--date*) exec ${realDate} "$@";; esac; done
exec ${realDate} -d @${Math.floor(now.getTime() / 1000)} "$@"
`;
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'date'), script);
  await chmod(join(dir, 'date'), 0o755);
}

/** A fresh database and service, as on first start (src/main.ts: an organization and its keys). */
async function startService(clock: Clock, fakeNow?: Date): Promise<LiveService> {
  const db = await createTestDatabase();
  const service = await compose({ pool: db.pool, clock, config });
  const account = await service.accounts.bootstrap({ email: 'admin@example.com', password: 'quickstart-password', organization: 'My organization' });
  const apiKey = account.tenants.find((t) => t.environment === 'sandbox')!.api_key;
  const baseUrl = await service.app.listen({ port: 0, host: '127.0.0.1' });
  const workdir = await mkdtemp(join(tmpdir(), 'quickstart-'));
  let path = process.env.PATH ?? '/usr/bin:/bin';
  if (fakeNow) {
    await fakeDate(join(workdir, 'bin'), fakeNow);
    path = `${join(workdir, 'bin')}:${path}`;
  }
  // A clean environment: no proxy variables or shell settings of whoever runs the tests.
  const shell = new ShellSession(workdir, { PATH: path, HOME: workdir, LANG: 'C.UTF-8', BASE_URL: baseUrl, API_KEY: apiKey });
  return { db, service, baseUrl, apiKey, workdir, shell };
}

async function stopService(live: LiveService | undefined): Promise<void> {
  if (!live) return;
  live.shell.close();
  await live.service.app.close();
  await live.db.drop();
  await rm(live.workdir, { recursive: true, force: true });
}

interface Answered {
  step: DocStep;
  actual: unknown;
  variables: Record<string, string>;
}

/** Runs the page's commands in order, checks each answer, and returns them. */
async function runQuickstart(live: LiveService): Promise<Answered[]> {
  const steps = docSteps(await readDoc('docs/quickstart.md'));
  // guards against blocks silently becoming unrunnable (a renamed fence language)
  expect(steps.length).toBeGreaterThanOrEqual(15);
  expect(steps.filter((s) => s.expected !== undefined).length).toBeGreaterThanOrEqual(14);
  const answered: Answered[] = [];
  for (const step of steps) {
    await live.service.tasks[BILLING_RUN_TASK]!({ once: true });
    await drainJobs(live.db.pool, live.service.tasks);
    const stdout = await live.shell.run(step.script);
    if (step.expected === undefined) continue;
    let actual: unknown;
    try {
      actual = JSON.parse(stdout.trim());
    } catch {
      throw new Error(`sh block ${step.number} did not answer JSON:\n${step.script}\nanswer:\n${stdout}`);
    }
    const variables = await live.shell.variables(variablesIn(step.expected));
    expect(actual, `sh block ${step.number}:\n${step.script}`).toMatchObject(answerPattern(step.expected, variables) as object);
    answered.push({ step, actual, variables });
  }
  const pdf = await readFile(join(live.workdir, 'invoice.pdf'));
  expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  return answered;
}

const RUN_TIMEOUT_MS = 120_000;

describe('docs/quickstart.md today (system clock)', () => {
  let live: LiveService | undefined;
  let answered: Answered[] = [];
  beforeAll(async () => {
    live = await startService(systemClock);
  });
  afterAll(() => stopService(live));

  it('names the base URL the service listens on by default', async () => {
    expect(await readDoc('docs/quickstart.md')).toContain(`BASE_URL=http://${config.host}:${config.port}\n`);
  });

  it('runs every command and gets the answer the page shows', async () => {
    answered = await runQuickstart(live!);
  }, RUN_TIMEOUT_MS);

  it('fails on a wrong amount in an expected answer', () => {
    const invoice = answered.find((a) => JSON.stringify(a.step.expected).includes('"line_items"'));
    expect(invoice, 'the invoice step ran').toBeDefined();
    const wrong = JSON.parse(JSON.stringify(invoice!.step.expected).replace('"total":"74.00"', '"total":"74.01"'));
    expect(wrong).not.toEqual(invoice!.step.expected);
    expect(() => expect(invoice!.actual).toMatchObject(answerPattern(wrong, invoice!.variables) as object)).toThrow();
  });

  it("runs the README's curl example with the sandbox key", async () => {
    const [example] = shBlocksContaining(await readDoc('README.md'), 'curl', 'sk_sandbox_...');
    expect(example, 'a ```sh block with curl and sk_sandbox_...').toBeDefined();
    const defaultBaseUrl = `http://${config.host}:${config.port}`;
    expect(example).toContain(defaultBaseUrl);
    const stdout = await live!.shell.run(example!.replaceAll('sk_sandbox_...', live!.apiKey).replaceAll(defaultBaseUrl, live!.baseUrl));
    // after the quick start, the sandbox has its two products (name order)
    expect(JSON.parse(stdout)).toMatchObject({ data: [{ name: 'API requests' }, { name: 'Platform' }], pagination_meta: { total_items: 2 } });
  });

  it('GET / serves the dashboard (docs/dashboard.md)', async () => {
    const res = await fetch(`${live!.baseUrl}/`, { redirect: 'manual' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toContain('<div id="root"></div>');
    expect(page).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js">/);
  });
});

// The page promises the same amounts whatever the day. The hardest day: the 1st, just after
// midnight, when this month's invoice is dated today.
describe('docs/quickstart.md on the 1st of a month at 00:05 UTC', () => {
  const now = new Date('2027-03-01T00:05:00.000Z');
  let live: LiveService | undefined;
  beforeAll(async () => {
    live = await startService(new ManualClock(now), now);
  });
  afterAll(() => stopService(live));

  it('runs every command and gets the answer the page shows', async () => {
    expect((await live!.shell.run('date -u +%F')).trim()).toBe('2027-03-01');
    const answered = await runQuickstart(live!);
    const invoices = answered.find((a) => JSON.stringify(a.step.expected).includes('"INV-0003"'));
    expect(invoices?.variables).toMatchObject({ START_DATE: '2027-01-01', LAST_MONTH: '2027-02-01', THIS_MONTH: '2027-03-01' });
  }, RUN_TIMEOUT_MS);
});
