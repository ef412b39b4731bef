import pg from 'pg';
import { loadConfig } from '../../src/config/index.js';
import { systemClock } from '../../src/kernel/clock.js';
import { compose } from '../../src/composition.js';

/**
 * The service's OpenAPI document (what `GET /api/v1/openapi.json` serves), built without a
 * database or a listening server: the app is composed over a pool that answers every query
 * with no rows (the start-up data migration then has nothing to do) and whose LISTEN
 * connection is refused at once (the API-key cache then stays off), and `app.swagger()` reads
 * the routes' schemas.
 */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  // Port 1 on loopback refuses at once: nothing here may reach a real database.
  const pool = new pg.Pool({ connectionString: 'postgres://sdk@127.0.0.1:1/none' });
  pool.query = (async () => ({ rows: [], rowCount: 0, command: 'SELECT', oid: 0, fields: [] })) as unknown as typeof pool.query;
  const config = { ...loadConfig({}), logLevel: 'silent', secretKey: 'openapi-document-only' };
  const { app } = await compose({ pool, clock: systemClock, config });
  try {
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
    await pool.end();
  }
}
