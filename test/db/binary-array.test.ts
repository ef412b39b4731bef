// Binary array parameters read back by PostgreSQL itself: every element type, texts longer than
// the writer's first buffer, and timestamps across PostgreSQL's epoch.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BinaryArrayWriter, ELEMENT_OID } from '../../src/db/binary-array.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

describe('binary array parameters', () => {
  it('round-trips text, jsonb, timestamptz and bytea elements through PostgreSQL', async () => {
    const texts = ['', 'plain', 'tab\there "quote" \\back {braces,comma}', 'é 💶 \u2028', 'x'.repeat(5_000)];
    const instants = [new Date('2000-01-01T00:00:00.000Z'), new Date('1999-12-31T23:59:59.999Z'), new Date('2026-11-21T10:15:30.123Z'), new Date('9999-12-31T23:59:59.999Z')];
    const documents = [{}, { a: '1' }, { 'key "q"': 'line\nbreak', emoji: '💶' }];
    const hashes = ['00', 'ff00ab', 'a'.repeat(64)];

    const text = new BinaryArrayWriter(ELEMENT_OID.text, texts.length, 1); // forces the buffer to grow
    texts.forEach((t) => text.text(t));
    const timestamps = new BinaryArrayWriter(ELEMENT_OID.timestamptz, instants.length, 8);
    instants.forEach((d) => timestamps.timestamptz(d.getTime()));
    const jsonb = new BinaryArrayWriter(ELEMENT_OID.jsonb, documents.length, 1);
    documents.forEach((d) => jsonb.jsonb(JSON.stringify(d)));
    const bytea = new BinaryArrayWriter(ELEMENT_OID.bytea, hashes.length, 1);
    hashes.forEach((h) => bytea.byteaFromHex(h));

    const { rows } = await db.pool.query<{ texts: string[]; instants: string[]; documents: unknown[]; hashes: string[] }>(
      `SELECT $1::text[] AS texts, (SELECT array_agg(to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) FROM unnest($2::timestamptz[]) t) AS instants,
              array_to_json($3::jsonb[]) AS documents, (SELECT array_agg(encode(b, 'hex')) FROM unnest($4::bytea[]) b) AS hashes`,
      [text.finish(), timestamps.finish(), jsonb.finish(), bytea.finish()],
    );
    expect(rows[0]!.texts).toEqual(texts);
    expect(rows[0]!.instants).toEqual(instants.map((d) => d.toISOString()));
    expect(rows[0]!.documents).toEqual(documents);
    expect(rows[0]!.hashes).toEqual(hashes);
  });

  it('writes any millisecond instant from 1970 to 9999 as the same timestamptz', async () => {
    const instants = fc.sample(fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }), 500);
    const writer = new BinaryArrayWriter(ELEMENT_OID.timestamptz, instants.length, 8);
    instants.forEach((d) => writer.timestamptz(d.getTime()));
    const { rows } = await db.pool.query<{ ms: string }>(
      `SELECT (extract(epoch FROM t) * 1000)::bigint::text AS ms FROM unnest($1::timestamptz[]) WITH ORDINALITY AS u(t, n) ORDER BY n`,
      [writer.finish()],
    );
    expect(rows.map((r) => Number(r.ms))).toEqual(instants.map((d) => d.getTime()));
  });
});
