/* global process, console, performance */
// Builds the dashboard into dashboard/dist (docs/dashboard.md). Runs in `npm ci`'s lifecycle
// (`prepare`), and before `npm start` with --if-missing. Each asset also gets a .gz copy, which
// the service sends to browsers that accept gzip (@fastify/static's preCompressed).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, 'dist');

if (process.argv.includes('--if-missing') && existsSync(path.join(dist, 'index.html'))) process.exit(0);

let vite;
try {
  createRequire(import.meta.url).resolve('vite');
  vite = await import('vite');
} catch {
  // An install without devDependencies: the service still runs, `/` shows the API reference.
  console.error('dashboard: vite is not installed (npm ci --omit=dev?); the dashboard is not built and / redirects to /docs');
  process.exit(0);
}

const started = performance.now();
await vite.build({ configFile: path.join(here, 'vite.config.ts'), logLevel: 'warn' });
const assets = path.join(dist, 'assets');
for (const name of readdirSync(assets)) {
  if (/\.(js|css|svg|json)$/.test(name)) writeFileSync(path.join(assets, `${name}.gz`), gzipSync(readFileSync(path.join(assets, name)), { level: 9 }));
}
console.error(`dashboard: built into dashboard/dist in ${((performance.now() - started) / 1000).toFixed(1)} s`);
