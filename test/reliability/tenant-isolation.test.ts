// Tenant-isolation probe generated from the served OpenAPI document: tenant A calls every operation
// that takes a path id with tenant B's ids. Each call must answer exactly as it does for an id that
// exists nowhere (the contract's 404 when the request is otherwise valid), and nothing of either
// tenant may change: every list and every object of both tenants is read before and after.
import { expect, it } from 'vitest';
import { useHarness, type Harness } from '../harness/app.js';
import { errorShapeProblem, operations, sketch, type Document, type Operation } from './openapi.js';
import { createResources, idFor, SNAPSHOT_URLS, type PathIds } from './resources.js';

const harness = useHarness({ rateLimit: { ingestPerSecond: 0, readPerSecond: 0, writePerSecond: 0, signinPerMinute: 0, oauthTokenPerSecond: 0, syncIntervalMs: 100 } });

/** An id of the same form as `id` that no tenant has. */
const missing = (id: string) => `${id.slice(0, -6)}ZZZZZZ`;

function fill(op: Operation, ids: PathIds, transform: (id: string) => string): { url: string; covered: boolean } {
  let covered = false;
  const url = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const id = idFor(ids, op.path, name);
    if (id === undefined) return `unknown_${name}`;
    covered = true;
    return encodeURIComponent(transform(id));
  });
  return { url, covered };
}

async function call(h: Harness, op: Operation, url: string, key: string) {
  const body = op.bodyType === 'application/json' ? (sketch(op.bodySchema) ?? {}) : undefined;
  return h.request(op.method, url, { key, ...(body !== undefined ? { body } : {}) });
}

/** Every list and every object readable by `key`: the tenant's state as its API shows it. */
async function snapshot(h: Harness, ops: Operation[], ids: PathIds, key: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const url of SNAPSHOT_URLS) out[url] = (await h.request('GET', url, { key })).body;
  for (const op of ops) {
    // Downloads are rendered files; an upcoming invoice is a preview whose line ids are new each time.
    if (op.method !== 'GET' || !op.path.includes('{') || op.path.includes('/download') || op.path.endsWith('/upcoming-invoice')) continue;
    const { url, covered } = fill(op, ids, (id) => id);
    if (!covered) continue;
    const res = await h.request('GET', url, { key });
    out[url] = `${res.statusCode} ${res.body}`;
  }
  return out;
}

it("answers another tenant's ids as unknown ids on every operation, changing nothing", { timeout: 280_000 }, async () => {
  const h = harness();
  const doc = (await h.request('GET', '/api/v1/openapi.json', { key: null })).json() as Document;
  const ops = operations(doc).filter((op) => op.path.includes('{'));
  const a = h.tenant;
  const b = h.other;
  const idsB = await createResources(h, b.apiKey, b.id);
  const idsA = await createResources(h, a.apiKey, a.id);
  const beforeB = await snapshot(h, ops, idsB, b.apiKey);
  const beforeA = await snapshot(h, ops, idsA, a.apiKey);

  const leaks: string[] = [];
  let covered = 0;
  let notFound = 0;
  for (const op of ops) {
    const foreign = fill(op, idsB, (id) => id);
    if (!foreign.covered) continue;
    covered += 1;
    const res = await call(h, op, foreign.url, a.apiKey);
    const unknown = await call(h, op, fill(op, idsB, missing).url, a.apiKey);
    // Ids may be quoted in messages: compare with every id written the same way.
    const normalize = (text: string) => Object.values(idsB).reduce((t, id) => t.replaceAll(id, '<id>').replaceAll(missing(id), '<id>'), text);
    const same = res.statusCode === unknown.statusCode && normalize(res.body) === normalize(unknown.body);
    if (res.statusCode < 400 || !same) leaks.push(`${op.method} ${op.path}: ${res.statusCode} ${res.body.slice(0, 200)} (an unknown id: ${unknown.statusCode} ${unknown.body.slice(0, 200)})`);
    if (res.statusCode === 404) {
      notFound += 1;
      expect(errorShapeProblem(op, 404, res.headers['content-type'] as string, res.body), `${op.method} ${op.path}`).toBeUndefined();
    }
  }
  expect(leaks).toEqual([]);
  console.info(`tenant isolation: ${covered} operations called with another tenant's ids, ${notFound} answered 404`);
  // Most operations are reached with a valid-enough request to meet the lookup (the others are refused
  // by validation first, identically for both ids); the probe covers the document, not a hand-kept list.
  expect(covered).toBeGreaterThan(85);
  expect(notFound / covered).toBeGreaterThan(0.9);
  expect(await snapshot(h, ops, idsB, b.apiKey)).toEqual(beforeB);
  expect(await snapshot(h, ops, idsA, a.apiKey)).toEqual(beforeA);
});
