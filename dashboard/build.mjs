/* global process, console, performance */
// Builds the dashboard into dashboard/dist (docs/dashboard.md). Runs in `npm ci`'s lifecycle
// (`prepare`), and before `npm start` with --if-missing: then only when the build is missing or
// older than one of its sources (a `git pull` must not leave the old screens served). Each asset also gets a .gz copy, which
// the service sends to browsers that accept gzip (@fastify/static's preCompressed).
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, 'dist');

/** The newest modification time (ms) of a file or of any file below a folder. */
function newestMtimeMs(file) {
  if (!existsSync(file)) return 0;
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(file).map((name) => newestMtimeMs(path.join(file, name))));
}

const sources = [path.join(here, 'src'), path.join(here, 'index.html'), path.join(here, 'vite.config.ts'), path.join(here, '..', 'sdk', 'src')];
const built = path.join(dist, 'index.html');
if (process.argv.includes('--if-missing') && existsSync(built) && statSync(built).mtimeMs >= Math.max(...sources.map(newestMtimeMs))) process.exit(0);

let vite;
try {
  createRequire(import.meta.url).resolve('vite');
  vite = await import('vite');
} catch {
  // An install without devDependencies: the service still runs, `/` shows the API reference.
  console.error('dashboard: vite is not installed (npm ci --omit=dev?); the dashboard is not built and / redirects to /docs');
  process.exit(0);
}

// Always the production bundle (minified React, no JSX dev runtime): vitest's global setup runs
// this with NODE_ENV=test, which Vite would otherwise keep, and the tests and the size bench then
// looked at a development build twice the size (docs/dashboard.md, "Speed and size").
// eslint-disable-next-line no-restricted-syntax -- the build's own process, not the service's configuration
process.env.NODE_ENV = 'production';
const started = performance.now();
await vite.build({ configFile: path.join(here, 'vite.config.ts'), logLevel: 'warn' });
const assets = path.join(dist, 'assets');
for (const name of readdirSync(assets)) {
  if (/\.(js|css|svg|json)$/.test(name)) writeFileSync(path.join(assets, `${name}.gz`), gzipSync(readFileSync(path.join(assets, name)), { level: 9 }));
}
console.error(`dashboard: built into dashboard/dist in ${((performance.now() - started) / 1000).toFixed(1)} s`);
