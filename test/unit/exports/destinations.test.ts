import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { insideRoot, openDestination } from '../../../src/modules/exports/destinations.js';

const root = mkdtempSync(join(tmpdir(), 'export-destinations-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('export destinations', () => {
  it('accepts only absolute folders inside the root', () => {
    expect(insideRoot('/srv/exports', '/srv/exports')).toBe('/srv/exports');
    expect(insideRoot('/srv/exports', '/srv/exports/acme/')).toBe('/srv/exports/acme');
    expect(insideRoot('/srv/exports', '/srv/exports/..hidden')).toBe('/srv/exports/..hidden');
    expect(insideRoot('/srv/exports', '/srv/exports/acme/../../etc')).toBeUndefined();
    expect(insideRoot('/srv/exports', '/srv/exports-other')).toBeUndefined();
    expect(insideRoot('/srv/exports', '/etc')).toBeUndefined();
    expect(insideRoot('/srv/exports', 'acme')).toBeUndefined();
  });

  it('writes a folder file under its key, replacing the file of an earlier attempt, with no partial file left', async () => {
    const destination = openDestination({ type: 'FOLDER', path: join(root, 'acme') }, root);
    const first = await destination.put('invoices/date=2026-03-15/exp_1.csv', Buffer.from('id\na\n'), 'text/csv');
    expect(first).toBe(join(root, 'acme', 'invoices', 'date=2026-03-15', 'exp_1.csv'));
    await destination.put('invoices/date=2026-03-15/exp_1.csv', Buffer.from('id\nb\n'), 'text/csv');
    expect(readFileSync(first, 'utf8')).toBe('id\nb\n');
    expect(readdirSync(join(root, 'acme', 'invoices', 'date=2026-03-15'))).toEqual(['exp_1.csv']);
  });

  it('refuses to write outside the root, even for a configuration stored before the root moved', async () => {
    const destination = openDestination({ type: 'FOLDER', path: '/tmp/elsewhere' }, root);
    await expect(destination.put('x.csv', Buffer.from(''), 'text/csv')).rejects.toThrow('not inside EXPORT_FOLDER_ROOT');
  });
});
