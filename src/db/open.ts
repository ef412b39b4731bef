import type { Config } from '../config/index.js';
import { startEmbeddedPostgres, type EmbeddedServer } from './embedded.js';
import { migrate } from './migrate.js';
import { createPool, type Pool } from './pool.js';

export interface Database {
  pool: Pool;
  url: string;
  close(): Promise<void>;
}

/** What the embedded server's manager has to tell a person (a port fallback, a stale cluster stopped). */
const toTerminal = (message: string) => process.stderr.write(`${message}\n`);

/** Connects to DATABASE_URL, or starts the embedded PostgreSQL under DATA_DIR, then migrates. */
export async function openDatabase(config: Config, log: (msg: string) => void = toTerminal): Promise<Database> {
  let embedded: EmbeddedServer | undefined;
  let url = config.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort, log });
    url = embedded.url;
  }
  const pool = createPool(url);
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end();
    await embedded?.stop();
    throw error;
  }
  return {
    pool,
    url,
    close: async () => {
      await pool.end();
      await embedded?.stop();
    },
  };
}
