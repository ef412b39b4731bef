/**
 * Hand-written helpers around the generated fetch client (src/gen, do not edit): a client for
 * a server-side program holding an API key, a client for the dashboard in the browser (the
 * sign-in session's cookie, its CSRF token and the tenant chosen), and the error thrown when a
 * call asks for `throwOnError`.
 */
import { createClient, createConfig, type Client, type Config } from './gen/client/index.js';

/** A refused call (HTTP status 4xx or 5xx), thrown unless the call says `throwOnError: false`. */
export class BillingApiError extends Error {
  /** The HTTP status, e.g. 400 or 404. */
  readonly status: number;
  /** The contract's machine-readable code (`NOT_FOUND`, `BAD_REQUEST`...), or null when the body has none. */
  readonly code: string | null;
  /** The parsed answer body, as the operation's error type describes it. */
  readonly body: unknown;

  constructor(status: number, body: unknown) {
    const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const message = typeof fields.message === 'string' ? fields.message : typeof body === 'string' && body ? body : `HTTP ${status}`;
    super(message);
    this.name = 'BillingApiError';
    this.status = status;
    this.code = typeof fields.code === 'string' ? fields.code : typeof fields.error === 'string' ? fields.error : null;
    this.body = body;
  }
}

/** Throwing calls throw a BillingApiError; calls with `throwOnError: false` keep the typed `error` body. */
function throwTypedErrors(client: Client): Client {
  client.interceptors.error.use((error, response, _request, options) => {
    if (!options.throwOnError || !response) return error;
    return new BillingApiError(response.status, error);
  });
  return client;
}

export interface ApiKeyClientOptions {
  /** Where the service answers, without a path: `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** A tenant's secret API key (`sk_sandbox_…` or `sk_prod_…`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** false: return `{ error }` (the typed error body) on 4xx/5xx instead of throwing a BillingApiError (default true). */
  throwOnError?: boolean;
  /** Another fetch (tests, proxies); default globalThis.fetch. */
  fetch?: typeof fetch;
}

/** A client for server-side code: every call acts for the API key's tenant. */
export function createApiKeyClient(options: ApiKeyClientOptions): Client {
  const config: Config = {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    // Only bearer operations take the key; the OAuth endpoints' basic scheme wants client credentials.
    auth: (auth) => (auth.scheme === 'bearer' ? options.apiKey : undefined),
    throwOnError: options.throwOnError ?? true,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  return throwTypedErrors(createClient(createConfig(config)));
}

export interface SessionClientOptions {
  /** The service's origin; default '' (same origin as the page, which the session requires). */
  baseUrl?: string;
  /** The `csrf_token` of `GET /api/v1/session`, sent as `X-CSRF-Token` (required on every method but GET and HEAD). */
  csrfToken: string | (() => string | undefined);
  /** The tenant the UI acts on, sent as `X-Tenant-Id`: one of the session's organizations' tenants. */
  tenantId: string | (() => string | undefined);
  /** false: return `{ error }` on 4xx/5xx instead of throwing a BillingApiError (default true). */
  throwOnError?: boolean;
  fetch?: typeof fetch;
}

/** The name of the header carrying the session's CSRF token. */
export const CSRF_HEADER = 'X-CSRF-Token';
/** The name of the header choosing the tenant a session call acts on. */
export const TENANT_HEADER = 'X-Tenant-Id';

/**
 * A client for the dashboard in the browser: the sign-in session's cookie goes along
 * (`credentials: 'same-origin'`), no API key. The tenant and the CSRF token may be functions, so
 * one client follows the UI's sandbox/production switch.
 */
export function createSessionClient(options: SessionClientOptions): Client {
  const read = (value: string | (() => string | undefined)) => (typeof value === 'function' ? value() : value);
  const client = createClient(createConfig({
    baseUrl: (options.baseUrl ?? '').replace(/\/+$/, ''),
    credentials: 'same-origin',
    throwOnError: options.throwOnError ?? true,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  }));
  client.interceptors.request.use((request) => {
    const tenantId = read(options.tenantId);
    const csrfToken = read(options.csrfToken);
    if (tenantId) request.headers.set(TENANT_HEADER, tenantId);
    if (csrfToken) request.headers.set(CSRF_HEADER, csrfToken);
    return request;
  });
  return throwTypedErrors(client);
}
