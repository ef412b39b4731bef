import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { drainJobs } from '../../src/jobs/runtime.js';
import { systemClock } from '../../src/kernel/clock.js';
import { compose, type Composition } from '../../src/main.js';
import { BILLING_RUN_TASK } from '../../src/modules/invoices/index.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { quickstart } from '../../sdk/examples/quickstart.js';

/**
 * docs/quickstart.md's SDK section: the program it shows (sdk/examples/quickstart.ts, the same
 * text) runs against the real service listening on a loopback port, with the sandbox key of a
 * first start, while the test does the worker's part (billing runs, jobs) in the background.
 */
const config = { ...loadConfig({}), logLevel: 'silent' as const, secretKey: 'quickstart-sdk-test-secret-key' };
const EXAMPLE = new URL('../../sdk/examples/quickstart.ts', import.meta.url);

let db: TestDatabase;
let service: Composition;
let baseUrl: string;
let apiKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  service = await compose({ pool: db.pool, clock: systemClock, config });
  const account = await service.accounts.bootstrap({ email: 'admin@example.com', password: 'quickstart-password', organization: 'My organization' });
  apiKey = account.tenants.find((t) => t.environment === 'sandbox')!.api_key;
  baseUrl = await service.app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await service?.app.close();
  await db?.drop();
});

describe('docs/quickstart.md with the SDK', () => {
  it('shows sdk/examples/quickstart.ts as it is', async () => {
    const page = await readFile(new URL('../../docs/quickstart.md', import.meta.url), 'utf8');
    const block = /^```ts\n(\/\/ docs\/quickstart\.md written with the SDK[\s\S]*?)^```$/m.exec(page);
    expect(block, 'a ```ts block holding sdk/examples/quickstart.ts').not.toBeNull();
    expect(block![1]).toBe(await readFile(EXAMPLE, 'utf8'));
  });

  it('runs against a real service and gets the invoices the curl walkthrough gets', async () => {
    // the worker's part, as `npm start` runs it: billing runs and every job due, until the program ends
    let running = true;
    const worker = (async () => {
      while (running) {
        await service.tasks[BILLING_RUN_TASK]!({ once: true });
        await drainJobs(db.pool, service.tasks);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const lines: string[] = [];
    let result: Awaited<ReturnType<typeof quickstart>>;
    try {
      result = await quickstart(baseUrl, apiKey, (line) => lines.push(line));
    } finally {
      running = false;
      await worker;
    }
    expect(result.invoices.map((i) => [i.invoice_number, i.status, i.total])).toEqual([
      ['INV-0001', 'FINALIZED', '49.00'],
      ['INV-0002', 'FINALIZED', '74.00'],
      ['INV-0003', 'FINALIZED', '49.00'],
    ]);
    expect(result.due).toBe('172.00');
    expect(result.invoice.line_items.map((l) => [l.name, l.amount_total])).toEqual([['Platform fee', '49.00'], ['API requests', '25.00']]);
    expect(result.subscription.mrr).toBe('49.00');
    expect(Buffer.from(await result.pdf.arrayBuffer()).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(result.portalInvoices.map((i) => i.invoice_number)).toEqual(['INV-0003', 'INV-0002', 'INV-0001']);
    expect(lines).toContain('ingested 3 events');
    expect(lines).toContain('amount due: 172.00 USD');
  }, 180_000);
});
