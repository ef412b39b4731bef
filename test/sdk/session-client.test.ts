import { beforeAll, describe, expect, it } from 'vitest';
import { BillingApiError, createApiKeyClient, createCustomer, createSessionClient, getSession, getTenant, listCustomers } from '../../sdk/src/index.js';
import { useHarness } from '../harness/app.js';
import { Browser, csrfOf } from '../http/oauth-helpers.js';

/**
 * The SDK's two clients against the service listening on a loopback port: createSessionClient as
 * the dashboard uses it (the browser's cookie and Origin are added by a fetch wrapper, as a
 * browser would add them), and createApiKeyClient.
 */
const harness = useHarness();
let baseUrl: string;
let cookie: string;

/** What the browser adds to a same-origin fetch: the session cookie and the page's Origin. */
const browserFetch: typeof fetch = (input, init) => {
  const request = new Request(input, init);
  request.headers.set('cookie', cookie);
  request.headers.set('origin', baseUrl);
  return fetch(request);
};

beforeAll(async () => {
  const h = harness();
  baseUrl = await h.service.app.listen({ port: 0, host: '127.0.0.1' });
  const owner = (await h.db.pool.query<{ email: string }>(
    'SELECT u.email FROM users u JOIN organization_members m ON m.user_id = u.id WHERE m.organization_id = $1', [h.tenant.organizationId],
  )).rows[0]!.email;
  const browser = new Browser(h);
  const form = await browser.get('/signin');
  expect((await browser.post('/signin', { _csrf: csrfOf(form.body), email: owner, password: 'password-a' })).statusCode).toBe(303);
  cookie = browser.cookie;
});

describe('createSessionClient', () => {
  it('reads the session, then acts on the tenant chosen, switching between sandbox and production', async () => {
    const h = harness();
    const { data: session } = await getSession({ client: createSessionClient({ baseUrl, csrfToken: '', tenantId: '', fetch: browserFetch }) });
    const tenants = session.organizations[0]!.tenants;
    let tenantId = tenants.find((t) => t.environment === 'sandbox')!.id;
    const api = createSessionClient({ baseUrl, csrfToken: session.csrf_token, tenantId: () => tenantId, fetch: browserFetch });

    const { data: customer } = await createCustomer({ client: api, body: { name: 'SDK Session Co', alias: 'sdk-session', currency: 'EUR' } });
    expect(customer.alias).toBe('sdk-session');
    expect((await getTenant({ client: api })).data.id).toBe(h.tenant.id);
    tenantId = tenants.find((t) => t.environment === 'production')!.id;
    expect((await getTenant({ client: api })).data).toMatchObject({ id: h.production.id, environment: 'production' });
    expect((await listCustomers({ client: api, query: { search: 'SDK Session' } })).data.data).toEqual([]);
  });

  it('throws BillingApiError 403 for a write without the CSRF token, and 404 for a tenant of another organization', async () => {
    const h = harness();
    const noToken = createSessionClient({ baseUrl, csrfToken: '', tenantId: h.tenant.id, fetch: browserFetch });
    const refused = await createCustomer({ client: noToken, body: { name: 'Forged', currency: 'EUR' } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BillingApiError);
    expect(refused).toMatchObject({ status: 403, code: 'FORBIDDEN' });

    const theirs = createSessionClient({ baseUrl, csrfToken: '', tenantId: h.other.id, fetch: browserFetch });
    const { data, error, response } = await listCustomers({ client: theirs, throwOnError: false });
    expect(data).toBeUndefined();
    expect(response.status).toBe(404);
    expect(error).toEqual({ code: 'NOT_FOUND', message: 'tenant not found' });
  });
});

describe('createApiKeyClient', () => {
  it("acts for the key's tenant and sends no cookie", async () => {
    const h = harness();
    const api = createApiKeyClient({ baseUrl, apiKey: h.other.apiKey });
    expect((await getTenant({ client: api })).data.id).toBe(h.other.id);
    const wrongKey = createApiKeyClient({ baseUrl, apiKey: 'sk_sandbox_unknown' });
    await expect(getTenant({ client: wrongKey })).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });
});
