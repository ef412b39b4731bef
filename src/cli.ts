import { parseArgs } from 'node:util';
import { loadConfig } from './config/index.js';
import { systemClock } from './kernel/clock.js';
import { AppError, StartupError } from './kernel/errors.js';
import type { AccountsService } from './modules/accounts/index.js';

// The service (and TypeScript's transpilation of all of it) is loaded only by `serve`; the other
// commands load the database layer and accounts, and `help` nothing.
const database = () => import('./db/open.js');

const USAGE = `Usage: billing <command> [options]

Commands:
  serve                                   run the HTTP API and the background worker
  migrate                                 apply database migrations and exit
  bootstrap --email E --password P --organization NAME [--json]
                                          create a user, an organization with a production and a
                                          sandbox tenant, and one API key for each
  api-keys create --tenant TENANT_ID [--name NAME] [--json]
  api-keys list --tenant TENANT_ID [--json]
  api-keys revoke --tenant TENANT_ID --key KEY_ID [--json]

  help, --help                            print this help

Environment: DATABASE_URL (else the embedded PostgreSQL under DATA_DIR, default ./.data; while
the server runs, commands use its embedded PostgreSQL), PORT, SECRET_KEY; see the README.`;

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

async function withAccounts<T>(work: (accounts: AccountsService) => Promise<T>): Promise<T> {
  const { openDatabase } = await database();
  const { createAccountsService } = await import('./modules/accounts/index.js');
  const db = await openDatabase(loadConfig());
  try {
    return await work(createAccountsService({ pool: db.pool, clock: systemClock }));
  } finally {
    await db.close();
  }
}

function print(json: boolean, value: unknown, text: string): void {
  process.stdout.write(`${json ? JSON.stringify(value) : text}\n`);
}

function parseOptions(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        email: { type: 'string' },
        password: { type: 'string' },
        organization: { type: 'string' },
        tenant: { type: 'string' },
        name: { type: 'string' },
        key: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    return fail((error as Error).message);
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const { values, positionals } = parseOptions(rest);
  const json = values.json ?? false;
  switch (command) {
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return;
    case 'serve':
      await (await import('./main.js')).serve(loadConfig());
      return;
    case 'migrate': {
      const db = await (await database()).openDatabase(loadConfig());
      await db.close();
      print(json, { migrated: true }, 'migrations applied');
      return;
    }
    case 'bootstrap': {
      const { email, password, organization } = values;
      if (!email || !password || !organization) fail('bootstrap needs --email, --password and --organization');
      const result = await withAccounts((accounts) => accounts.bootstrap({ email, password, organization }));
      print(json, result, [`user ${result.user.id} ${result.user.email}`, `organization ${result.organization.id} ${result.organization.name}`,
        ...result.tenants.map((t) => `tenant ${t.id} (${t.environment}) api key: ${t.api_key}`)].join('\n'));
      return;
    }
    case 'api-keys': {
      const [action] = positionals;
      const tenant = values.tenant ?? fail('api-keys needs --tenant');
      if (action === 'create') {
        const key = await withAccounts((a) => a.createApiKey(tenant, values.name ?? 'cli'));
        print(json, { id: key.id, name: key.name, key: key.key }, `${key.id} ${key.key}`);
      } else if (action === 'list') {
        const keys = await withAccounts((a) => a.listApiKeys(tenant));
        print(json, keys.map(({ id, name, hint, created_at, last_used_at, revoked_at }) => ({ id, name, hint, created_at, last_used_at, revoked_at })),
          keys.map((k) => `${k.id} ${k.name} ${k.hint}${k.revoked_at ? ' (revoked)' : ''}`).join('\n'));
      } else if (action === 'revoke') {
        const keyId = values.key ?? fail('api-keys revoke needs --key');
        const key = await withAccounts((a) => a.revokeApiKey(tenant, keyId));
        print(json, { id: key.id, revoked_at: key.revoked_at }, `${key.id} revoked`);
      } else fail(`unknown api-keys action '${action ?? ''}'`);
      return;
    }
    default:
      fail(command ? `unknown command '${command}'` : 'no command given');
  }
}

// One line for the person at the terminal. A failure we did not foresee keeps its stack, which
// is what a bug report needs; what the operator can fix (StartupError) or asked wrongly (AppError) does not.
main(process.argv.slice(2)).catch((error: unknown) => {
  const known = error instanceof StartupError || error instanceof AppError;
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`error: ${message || 'unknown failure'}\n${known || !(error instanceof Error) ? '' : `${error.stack}\n`}`);
  process.exit(1);
});
