import pg from 'pg';
import type { Pool } from '../../db/pool.js';
import type { AuthContext } from '../../http/auth.js';

/** PostgreSQL channel on which a revocation announces the revoked key's hash. */
export const REVOKED_CHANNEL = 'api_key_revoked';
const MAX_ENTRIES = 50_000;
const RECONNECT_MS = 1_000;

/**
 * Authenticated API keys by the SHA-256 of the full secret, so a request costs no database
 * round trip. It is not a time-based cache: an entry lives until its key is revoked. Every
 * revocation (API, CLI, any process) commits a NOTIFY with the key's hash, and each process
 * evicts that entry when the notification arrives; the revoking process evicts at once. While
 * the LISTEN connection is not up, the cache is empty and unused, so a missed notification can
 * never keep a revoked key alive.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, AuthContext>();
  private client: pg.Client | undefined;
  private listening = false;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  /**
   * Bumped by every eviction. A request that read a key from the database stores it only if no
   * revocation arrived meanwhile, so a read that raced a revocation cannot re-insert the key.
   */
  generation = 0;

  constructor(private readonly pool: Pool) {}

  get(secretHash: string): AuthContext | undefined {
    return this.listening ? this.entries.get(secretHash) : undefined;
  }

  /** Stores a context read from the database at `readAtGeneration` (see `generation`). */
  set(secretHash: string, context: AuthContext, readAtGeneration: number): void {
    if (!this.listening || readAtGeneration !== this.generation) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(secretHash, context);
  }

  evict(secretHash: string): void {
    this.generation += 1;
    this.entries.delete(secretHash);
  }

  /** Connects the LISTEN session; on any failure the cache switches off and reconnects later. */
  async start(): Promise<void> {
    if (this.closed || this.client) return;
    const client = new pg.Client({ connectionString: this.pool.options.connectionString });
    this.client = client;
    const down = () => {
      this.listening = false;
      this.generation += 1;
      this.entries.clear();
      if (this.client === client) this.client = undefined;
      client.end().catch(() => {});
      if (!this.closed) {
        this.retry = setTimeout(() => void this.start(), RECONNECT_MS);
        this.retry.unref();
      }
    };
    client.on('error', down);
    client.on('end', () => {
      if (this.listening) down();
    });
    client.on('notification', (message) => {
      if (message.channel === REVOKED_CHANNEL && message.payload) this.evict(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${REVOKED_CHANNEL}`);
      this.listening = !this.closed;
    } catch {
      down();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    this.entries.clear();
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }
}
