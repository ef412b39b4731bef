import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../kernel/errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * An /api/v1 route that takes application/x-www-form-urlencoded bodies: the OAuth protocol
     * endpoints, whose clients send forms (RFC 6749). Routes outside /api/v1 (the HTML pages) take
     * forms without saying so.
     */
    acceptsForm?: boolean;
  }
}

/** A route of the JSON API: under /api/v1 and not one of the OAuth protocol endpoints. */
export function isJsonApiRoute(request: FastifyRequest): boolean {
  const { url, config } = request.routeOptions;
  return url !== undefined && url.startsWith('/api/v1/') && !config?.acceptsForm;
}

const FORM_ON_JSON_ROUTE =
  "this endpoint takes a JSON body: send the header Content-Type: application/json (curl: -H 'Content-Type: application/json')";

interface ObjectSchema {
  type?: unknown;
  required?: unknown;
}

const bodySchemaOf = (request: FastifyRequest) => request.routeOptions.schema?.body as ObjectSchema | undefined;

/**
 * Body parsing: JSON everywhere, forms only where forms are spoken. An empty JSON body (or an
 * empty form sent to the JSON API) is the same as no body at all, so `curl -X POST -H
 * 'Content-Type: application/json'` works on an action such as publish; `fillEmptyBody` then
 * decides what no body means for a route with a body schema.
 */
export function registerContentTypes(app: FastifyInstance): void {
  // A text/plain body is a wrong content type, not a string.
  app.removeContentTypeParser('text/plain');

  // Fastify's own parser (with its prototype-poisoning guard), minus its refusal of empty bodies.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    parseJson(request, body as string, done);
  });

  // A form sent to a JSON route is almost always `curl -d` without `-H`: parsed as a form, its
  // JSON text would become one meaningless field and the answer would be a misleading "name is
  // required", so it is refused for what it is.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (request, body, done) => {
    const charset = declaredCharset(request);
    if (charset !== undefined && !UTF8_CHARSETS.has(charset)) {
      return done(new AppError('BAD_REQUEST', `the form body must be UTF-8 (charset=utf-8), not charset=${charset.slice(0, 40)}`), undefined);
    }
    if (!isJsonApiRoute(request)) return done(null, Object.fromEntries(new URLSearchParams(body as string)));
    if (body === '') return done(null, undefined);
    done(new AppError('BAD_REQUEST', FORM_ON_JSON_ROUTE, 415), undefined);
  });

  app.addHook('preValidation', async (request) => fillEmptyBody(request));
}

/** A form is read as UTF-8 (the WHATWG default); a body declared in another charset would be misread. */
const UTF8_CHARSETS = new Set(['utf-8', 'utf8', 'us-ascii']);

/** The `charset` parameter of the request's Content-Type, lower-cased, if it has one. */
function declaredCharset(request: FastifyRequest): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(String(request.headers['content-type'] ?? ''));
  return match?.[1]?.toLowerCase();
}

/**
 * No body where the route has an object body schema: `{}` when none of its fields is required
 * (an update changing nothing, mark-paid with its defaults), a 400 naming the required fields
 * otherwise. Routes without a body schema keep `undefined`.
 */
function fillEmptyBody(request: FastifyRequest): void {
  if (request.body !== undefined) return;
  const schema = bodySchemaOf(request);
  if (!schema || schema.type !== 'object') return;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  if (required.length > 0) {
    throw new AppError('BAD_REQUEST', `body is empty; this endpoint takes a JSON object with ${required.join(', ')} (required)`);
  }
  request.body = {};
}
