// One typed catalogue of outbound event names (src/kernel/event-types.ts): every event name the
// code writes is in it, everything it says is emitted is emitted somewhere, and a webhook endpoint
// can subscribe to each of them by name.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { OutboxEvent } from '../../src/db/outbox.js';
import { EMITTED_EVENT_TYPES, EVENT_TYPES, RESERVED_EVENT_TYPES, TEST_EVENT_TYPE, type EventType } from '../../src/kernel/event-types.js';
import { useHarness } from '../harness/app.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CATALOGUE = join(ROOT, 'src', 'kernel', 'event-types.ts');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

// `<resource>.<kind>` for the resources that have events; job names (`usage.rollup`, `invoices.render_pdf`) have other prefixes
const RESOURCES = new Set([...EVENT_TYPES, TEST_EVENT_TYPE].map((name) => name.split('.')[0]!));
const EVENT_NAME = /^([a-z_]+)\.[a-z_]+$/;

/** Every string literal of the sources that is shaped like an event name of a known resource, with where it is. */
function eventNamesInCode(): { name: string; at: string }[] {
  const found: { name: string; at: string }[] = [];
  for (const path of filesUnder(join(ROOT, 'src')).filter((file) => file !== CATALOGUE)) {
    const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
        const match = EVENT_NAME.exec(node.text);
        if (match && RESOURCES.has(match[1]!)) found.push({ name: node.text, at: `${relative(ROOT, path)}:${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}` });
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return found;
}

const harness = useHarness();

describe('outbound event catalogue', () => {
  const inCode = eventNamesInCode();

  it('types every outbox event with the catalogue', () => {
    expectTypeOf<OutboxEvent['type']>().toEqualTypeOf<EventType>();
  });

  it('lists every event name the code uses', () => {
    const known = new Set<string>([...EVENT_TYPES, TEST_EVENT_TYPE]);
    expect(inCode.filter(({ name }) => !known.has(name)).map(({ name, at }) => `${at} ${name}`)).toEqual([]);
  });

  it('emits every name it lists as emitted, and none it lists as reserved', () => {
    const used = new Set(inCode.map(({ name }) => name));
    expect(EMITTED_EVENT_TYPES.filter((name) => !used.has(name))).toEqual([]);
    expect(RESERVED_EVENT_TYPES.filter((name) => used.has(name))).toEqual([]);
    expect(new Set(EVENT_TYPES).size).toBe(EVENT_TYPES.length);
  });

  it('lets a webhook endpoint subscribe to every catalogued event by name, and to nothing else', async () => {
    const h = harness();
    const created = await h.request('POST', '/api/v1/webhooks/endpoints', { body: { url: 'http://127.0.0.1:9/all', event_types: [...EVENT_TYPES] } });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().event_types).toEqual([...EVENT_TYPES]);
    const test = await h.request('POST', '/api/v1/webhooks/endpoints', { body: { url: 'http://127.0.0.1:9/test', event_types: [TEST_EVENT_TYPE] } });
    expect(test.statusCode).toBe(400);
  });
});
