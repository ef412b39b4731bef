import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Where `dashboard/build.mjs` writes the built single-page app (docs/dashboard.md). */
export const DASHBOARD_DIST = fileURLToPath(new URL('../../dashboard/dist/', import.meta.url));

/**
 * The dashboard's pages may load scripts, styles and data from this origin only. Styles allow
 * 'unsafe-inline' because the component library (Mantine) and the charts set style attributes;
 * no inline script runs (Vite emits module scripts from /assets). Frames: this origin and `blob:`,
 * for the invoice and credit-note PDFs fetched with the session headers and shown in the page;
 * the dashboard itself may not be framed (`frame-ancestors 'none'`).
 */
export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; frame-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** Top-level paths the server itself answers: a browser asking for them never gets the app. */
const SERVER_PREFIXES = ['/api/', '/docs', '/assets/', '/health', '/ready', '/metrics'];

export interface DashboardServing {
  /** `/` and `/assets/*`, registered with the other routes. */
  routes: (app: FastifyInstance) => Promise<void>;
  /**
   * Client routes (`/developers/api-keys`, `/customers/cus_...`): a browser's GET for a page the
   * server does not have gets the app's index.html, whose router shows the screen or its own
   * not-found screen. Answers undefined when the request is not such a page.
   */
  clientRoute: (request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined;
}

/**
 * Serves the built dashboard. Without a build (a clone where `npm ci` skipped scripts and the
 * start could not build it), `/` keeps redirecting to the API reference and nothing else changes.
 */
export function dashboardServing(dist = DASHBOARD_DIST): DashboardServing {
  const indexPath = `${dist}index.html`;
  const built = existsSync(indexPath);
  // Read once: it changes only with a new build, and a build comes with a restart.
  const indexHtml = built ? readFileSync(indexPath, 'utf8') : '';

  const sendIndex = (reply: FastifyReply) =>
    reply
      .status(200)
      .header('content-security-policy', DASHBOARD_CSP)
      .header('x-frame-options', 'DENY')
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'same-origin')
      .header('x-content-type-options', 'nosniff')
      .type('text/html; charset=utf-8')
      .send(indexHtml);

  return {
    routes: async (app) => {
      const hidden = { hide: true };
      app.get('/', { config: { public: true }, schema: hidden }, async (_request, reply) => (built ? sendIndex(reply) : reply.redirect('/docs', 302)));
      if (!built) return;
      // Hashed file names: a new build has new names, so the files may be cached forever.
      await app.register(fastifyStatic, {
        root: `${dist}assets`,
        prefix: '/assets/',
        decorateReply: false,
        immutable: true,
        maxAge: '365d',
        preCompressed: true,
        index: false,
        schemaHide: true,
      });
    },
    clientRoute: (request, reply) => {
      if (!built || request.method !== 'GET') return undefined;
      const path = request.url.split('?')[0]!;
      if (SERVER_PREFIXES.some((prefix) => path === prefix.replace(/\/$/, '') || path.startsWith(prefix))) return undefined;
      if (!/\btext\/html\b/.test(request.headers.accept ?? '')) return undefined;
      return sendIndex(reply);
    },
  };
}
