// Seeded fuzzer over every operation of the served OpenAPI document: malformed requests must never
// answer 5xx, and every error must have one of the contract's shapes. FUZZ_SEED varies the seed;
// a failure prints the seed and the request, so `FUZZ_SEED=<seed> npm run test:reliability` replays it.
import { expect, it } from 'vitest';
import fc from 'fast-check';
import { useHarness } from '../harness/app.js';
import { errorShapeProblem, fieldPaths, isOAuthProtocol, operations, sketch, type Document, type Operation } from './openapi.js';
import { createResources, idFor, type PathIds } from './resources.js';

const RUNS_PER_OPERATION = 30;
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20_2611;
/** Only operations whose path contains this text (to replay one failure quickly); all by default. */
const ONLY = process.env.FUZZ_PATH;

const harness = useHarness({ rateLimit: { ingestPerSecond: 0, readPerSecond: 0, writePerSecond: 0, signinPerMinute: 0, oauthTokenPerSecond: 0, syncIntervalMs: 100 } });

interface FuzzRequest {
  kind: string;
  method: Operation['method'];
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

/** Numbers at and past the bounds of PostgreSQL's integer types and of JavaScript numbers. */
const edgeNumber = fc.constantFrom(
  '2147483648', '-2147483649', '4294967296', '9223372036854775808', '99999999999999999999999', '1e400', '-1', '0', '1.5', 'NaN', 'Infinity', '0x1F',
);

/** Strings that break parsers, bounds and lookups, for path segments, query values and form fields. */
const badString = fc.oneof(
  { arbitrary: edgeNumber, weight: 4 },
  {
    arbitrary: fc.constantFrom(
      '', ' ', 'null', 'true', '[]', '{}', '\u0000', 'a\u0000b', '../../etc/passwd', "' OR 1=1 --", '\ud800', '\u{1F4A5}', 'x'.repeat(5000),
      'cus_00000000000000000000000000', 'draft', '2026-02-30', '9999-12-31T25:61:61Z', 'EUR\u0000', 'name.sideways', 'created_at.desc,id',
    ),
    weight: 3,
  },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 1 },
  { arbitrary: fc.bigInt().map(String), weight: 1 },
  { arbitrary: fc.string({ maxLength: 20 }).map((s) => `${s}\u0000`), weight: 1 },
);

/** Percent-encoded segments that do not decode to valid UTF-8 text, sent as they are. */
const rawSegment = fc.constantFrom('%', '%zz', '%00', '%C0%AF', '%ED%A0%80', '%FF%FE');

/** Placeholder replaced in the serialized JSON by a number literal JSON.stringify cannot write. */
const HUGE = '"\u0001huge\u0001"';
const hugeLiteral = fc.constantFrom('123456789012345678901234567890', '1e999', '-1e999', '2147483648', '-0', '9007199254740993', '1.0000000000000000000000001');

const badValue: fc.Arbitrary<unknown> = fc.oneof(
  badString,
  fc.constantFrom(null, true, false, 0, -1, 2147483648, -2147483649, 1e308, -1e308, 1.5, 1e-300, [], {}, [null], { '': null }, 'x'.repeat(300_000)),
  fc.constant(HUGE.slice(1, -1)),
  fc.integer(),
  fc.jsonValue({ maxDepth: 2 }),
);

function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80'; // a lone surrogate: send its (invalid) UTF-8 bytes
  }
}

function setPath(target: unknown, path: string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const base = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  base[path[0]!] = setPath(base[path[0]!], path.slice(1), value);
  return base;
}

function serialize(body: unknown, huge: string): string {
  return JSON.stringify(body).replaceAll(HUGE, huge);
}

function form(body: Record<string, unknown>): string {
  return Object.entries(body).map(([k, v]) => `${encode(k)}=${encode(typeof v === 'string' ? v : JSON.stringify(v))}`).join('&');
}

/** Arbitrary malformed requests for one operation; `ids` fill path parameters that are not under attack. */
function requestsFor(op: Operation, ids: PathIds, apiKey: string): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const queryNames = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
  const isForm = op.bodyType === 'application/x-www-form-urlencoded';
  const oauth = isOAuthProtocol(op.path);
  const baseHeaders: Record<string, string> = oauth ? { authorization: `Basic ${Buffer.from('app_unknown:secret').toString('base64')}` } : { authorization: `Bearer ${apiKey}` };
  const validBody = (sketch(op.bodySchema) ?? {}) as Record<string, unknown>;
  const fields = fieldPaths(op.bodySchema);
  const required = op.bodySchema?.required ?? [];

  const url = (segments: Record<string, string>, query = '') =>
    op.path.replace(/\{([^}]+)\}/g, (_, name: string) => segments[name] ?? encode(idFor(ids, op.path, name) ?? `unknown_${name}`)) + query;
  const withBody = (kind: string, payload: string | Buffer, contentType = op.bodyType ?? 'application/json', segments: Record<string, string> = {}, query = ''): FuzzRequest => ({
    kind,
    method: op.method,
    url: url(segments, query),
    headers: { ...baseHeaders, 'content-type': contentType },
    payload,
  });
  const goodPayload = isForm ? form(validBody) : JSON.stringify(validBody);

  const extraQueryName = fc.constantFrom('page', 'per_page', 'order_by', 'unknown_param');
  // Weighted: attacks on the operation's own parameters and body come up more often than the generic ones.
  const cases: fc.WeightedArbitrary<FuzzRequest>[] = [];
  const push = (weight: number, ...arbitraries: fc.Arbitrary<FuzzRequest>[]) => cases.push(...arbitraries.map((arbitrary) => ({ arbitrary, weight })));
  if (pathParams.length > 0) {
    push(
      4,
      fc.record({ param: fc.constantFrom(...pathParams.map((p) => p.name)), value: fc.oneof(badString.map(encode), rawSegment) }).map(({ param, value }) =>
        op.bodyType ? withBody(`path ${param}`, goodPayload, undefined, { [param]: value }) : { kind: `path ${param}`, method: op.method, url: url({ [param]: value }), headers: baseHeaders },
      ),
    );
  }
  push(
    4,
    fc.record({ name: queryNames.length > 0 ? fc.oneof({ arbitrary: fc.constantFrom(...queryNames), weight: 4 }, { arbitrary: extraQueryName, weight: 1 }) : extraQueryName, value: fc.oneof(badString.map(encode), rawSegment), twice: fc.boolean() }).map(({ name, value, twice }) => {
      const query = `?${name}=${value}${twice ? `&${name}=${value}` : ''}`;
      return op.bodyType ? withBody(`query ${name}`, goodPayload, undefined, {}, query) : { kind: `query ${name}`, method: op.method, url: url({}, query), headers: baseHeaders };
    }),
  );
  push(
    1,
    fc.constantFrom('Bearer ', `Bearer ${'x'.repeat(10_000)}`, 'Basic Og==', 'Basic %%%', 'Bearer sk_test_wrong', 'Digest x', 'Bearer \u00e9').map((authorization) => ({
      kind: 'authorization',
      method: op.method,
      url: url({}),
      headers: { authorization, ...(op.bodyType ? { 'content-type': op.bodyType } : {}) },
      ...(op.bodyType ? { payload: goodPayload } : {}),
    })),
  );
  if (op.bodyType) {
    if (fields.length > 0) {
      push(
        6,
        fc.record({ field: fc.constantFrom(...fields), value: badValue, huge: hugeLiteral }).map(({ field, value, huge }) => {
          const body = setPath(validBody, field, value) as Record<string, unknown>;
          return withBody(`body ${field.join('.')}`, isForm ? form(body) : serialize(body, huge));
        }),
      );
    }
    if (required.length > 0) {
      push(
        2,
        fc.constantFrom(...required).map((missing) => {
          const body = { ...validBody };
          delete body[missing];
          return withBody(`missing ${missing}`, isForm ? form(body) : JSON.stringify(body));
        }),
      );
    }
    push(
      1,
      fc.constantFrom('[]', '"x"', '1', 'null', 'true', '{', '{"a":', '\u0000', 'nul', '{"a":1,}', `${'['.repeat(5000)}${']'.repeat(5000)}`, `{"__proto__":{"x":1}}`, `{"constructor":{"prototype":{"x":1}}}`, '\ufeff{}').map((raw) => withBody('raw body', raw)),
      fc.record({
        type: fc.constantFrom('text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/x-www-form-urlencoded', 'application/json', 'application/octet-stream', ''),
        utf16: fc.boolean(),
      }).map(({ type, utf16 }) => withBody(`content-type ${type}${utf16 ? ' utf-16' : ''}`, utf16 ? Buffer.from(goodPayload, 'utf16le') : goodPayload, type)),
      fc.constant(withBody('oversized body', `{"x":"${'x'.repeat(6 * 1024 * 1024)}"}`)),
    );
    if (isForm) {
      push(
        4,
        fc.record({ field: fc.constantFrom(...Object.keys(op.bodySchema?.properties ?? { x: {} })), value: fc.oneof(badString.map(encode), rawSegment) }).map(({ field, value }) =>
          withBody(`form ${field}`, `${goodPayload}&${field}=${value}`),
        ),
      );
    }
  } else {
    push(1, fc.constantFrom('{', '\u0000', '{"a":1}').map((raw) => ({ kind: 'unexpected body', method: op.method, url: url({}), headers: { ...baseHeaders, 'content-type': 'application/json' }, payload: raw })));
  }
  return fc.oneof(...cases);
}

function describeRequest(r: FuzzRequest): string {
  const payload = r.payload === undefined ? '' : ` payload=${JSON.stringify(String(r.payload).slice(0, 200))}${String(r.payload).length > 200 ? '...' : ''}`;
  return `[${r.kind}] ${r.method} ${r.url.slice(0, 300)} content-type=${r.headers['content-type'] ?? '-'}${payload}`;
}

it('answers every malformed request of every documented operation without 5xx and in the contract shapes', { timeout: 280_000 }, async () => {
  const h = harness();
  const doc = (await h.request('GET', '/api/v1/openapi.json', { key: null })).json() as Document;
  const all = operations(doc);
  expect(all.length).toBeGreaterThan(150);
  const ops = ONLY ? all.filter((op) => op.path.includes(ONLY)) : all;
  const ids = await createResources(h, h.tenant.apiKey, h.tenant.id);
  const failures: string[] = [];
  let sent = 0;
  for (const op of ops) {
    const seed = SEED + all.indexOf(op);
    let perOperation = 0;
    const result = await fc.check(
      fc.asyncProperty(requestsFor(op, ids, h.tenant.apiKey), async (request) => {
        perOperation += 1;
        const res = await h.service.app.inject({ method: request.method, url: request.url, headers: request.headers, ...(request.payload !== undefined ? { payload: request.payload } : {}) });
        if (res.statusCode >= 500) throw new Error(`${res.statusCode}: ${res.body.slice(0, 300)}`);
        if (res.statusCode >= 400) {
          const problem = errorShapeProblem(op, res.statusCode, res.headers['content-type'] as string | undefined, res.body);
          if (problem) throw new Error(`${res.statusCode} outside the contract (${problem}): ${res.body.slice(0, 300)}`);
        }
      }),
      { seed, numRuns: RUNS_PER_OPERATION, endOnFailure: true },
    );
    sent += perOperation;
    if (result.failed) {
      const request = result.counterexample?.[0] as FuzzRequest | undefined;
      const error = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
      failures.push(`${op.method} ${op.path} (FUZZ_SEED=${SEED}, operation seed ${seed}): ${request ? describeRequest(request) : '?'} -> ${error}`);
    } else {
      expect(perOperation, `${op.method} ${op.path}`).toBeGreaterThanOrEqual(RUNS_PER_OPERATION);
    }
  }
  expect(failures, `FUZZ_SEED=${SEED}, ${sent} requests over ${ops.length} operations`).toEqual([]);
});
