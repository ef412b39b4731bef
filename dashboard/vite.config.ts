import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The dashboard's build (docs/dashboard.md). `npm run dashboard:dev` serves it with hot reload on
 * :5173 and sends API and session calls to the service on :8080, so the cookie stays same-origin.
 */
const SERVICE = 'http://127.0.0.1:8080';

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  // The SDK is TypeScript source in this repository (sdk/README.md).
  resolve: { alias: { '@tally-billing/sdk': fileURLToPath(new URL('../sdk/src/index.ts', import.meta.url)) } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 600,
  },
  server: {
    proxy: Object.fromEntries(['/api', '/account', '/signin', '/signout', '/signup', '/oauth', '/docs'].map((p) => [p, SERVICE])),
  },
});
