import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../src/db/embedded.js';

// The embedded cluster's Unix socket lives in its data directory; a data folder so deep that the
// socket's path would not fit the kernel's limit must still start, over loopback TCP.
const started: EmbeddedServer[] = [];
const folders: string[] = [];
afterAll(async () => {
  for (const server of started) await server.stop();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

async function clientAddress(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: [row] } = await client.query<{ addr: string | null }>('SELECT host(client_addr) AS addr FROM pg_stat_activity WHERE pid = pg_backend_pid()');
    return row!.addr;
  } finally {
    await client.end();
  }
}

/** A data folder the postgres user can reach when the test runs as root (the cluster then lives in it). */
function dataFolder(depth: number): string {
  const root = mkdtempSync(path.join(tmpdir(), 'billing-socket-'));
  folders.push(root);
  chmodSync(root, 0o755);
  const dir = path.join(root, ...Array.from({ length: depth }, (_, i) => `level-${String(i).padStart(2, '0')}`));
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  return dir;
}

const freePort = () => 56_000 + Math.floor(Math.random() * 4_000);

describe('the embedded PostgreSQL', () => {
  it('is reached through its Unix socket, and over loopback TCP when the socket path would be too long', { timeout: 120_000 }, async () => {
    const near = await startEmbeddedPostgres({ dataDir: dataFolder(0), port: freePort() });
    started.push(near);
    expect(new URL(near.url).hostname).toMatch(/^%2F/); // a percent-encoded directory
    expect(await clientAddress(near.url)).toBeNull(); // a Unix-socket connection has no client address

    const deep = dataFolder(10); // 10 x 9 characters more: past the kernel's 107 bytes
    expect(Buffer.byteLength(path.join(deep, 'pg', '.s.PGSQL.56000'))).toBeGreaterThan(107);
    const far = await startEmbeddedPostgres({ dataDir: deep, port: freePort() });
    started.push(far);
    expect(new URL(far.url).hostname).toBe('127.0.0.1');
    expect(await clientAddress(far.url)).toBe('127.0.0.1');
  });
});
