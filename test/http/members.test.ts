import type { InjectOptions } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../harness/app.js';
import { useHarness } from '../harness/app.js';
import { Browser, csrfOf, signUp } from './oauth-helpers.js';

/**
 * GET/POST/DELETE /api/v1/members (src/modules/accounts/members.ts): the owner of organization
 * A (an ADMIN, signed in) adds and removes users; API keys only list; B stays out of reach.
 */
const harness = useHarness();
const ORIGIN = 'http://localhost:80';

interface Session { cookie: string; csrf: string }
let owner: Session;
let ownerId: string;

async function sessionOf(h: Harness, browser: Browser): Promise<Session> {
  const res = await h.service.app.inject({ method: 'GET', url: '/api/v1/session', headers: { cookie: browser.cookie } });
  expect(res.statusCode, res.body).toBe(200);
  return { cookie: browser.cookie, csrf: res.json().csrf_token };
}

function call(session: Session, method: InjectOptions['method'], url: string, body?: unknown) {
  const h = harness();
  const headers: Record<string, string> = { cookie: session.cookie, origin: ORIGIN, 'x-tenant-id': h.tenant.id, 'x-csrf-token': session.csrf };
  return h.service.app.inject({ method, url, headers, ...(body !== undefined ? { payload: body as object } : {}) });
}

const membersOf = async (h: Harness, organizationId: string) =>
  (await h.db.pool.query<{ user_id: string; role: string }>('SELECT user_id, role FROM organization_members WHERE organization_id = $1 ORDER BY created_at', [organizationId])).rows;

beforeAll(async () => {
  const h = harness();
  const row = (await h.db.pool.query<{ id: string; email: string }>(
    `SELECT u.id, u.email FROM users u JOIN organization_members m ON m.user_id = u.id WHERE m.organization_id = $1`, [h.tenant.organizationId],
  )).rows[0]!;
  ownerId = row.id;
  const browser = new Browser(h);
  const form = await browser.get('/signin');
  const res = await browser.post('/signin', { _csrf: csrfOf(form.body), email: row.email, password: 'password-a', return_to: '/account' });
  expect(res.statusCode, res.body).toBe(303);
  owner = await sessionOf(h, browser);
});

describe('members of the organization', () => {
  it('lists the owner as ADMIN, with an API key of either environment too', async () => {
    const h = harness();
    const bySession = await call(owner, 'GET', '/api/v1/members');
    expect(bySession.statusCode, bySession.body).toBe(200);
    expect(bySession.json().data).toEqual([{ id: ownerId, email: expect.stringMatching(/@a\.test$/), role: 'ADMIN', created_at: expect.any(String) }]);
    const byProductionKey = await h.request('GET', '/api/v1/members', { key: h.production.apiKey });
    expect(byProductionKey.json()).toEqual(bySession.json());
  });

  it('adds a signed-up user by e-mail (any case) as MEMBER, who then reaches the organization but may not add or remove', async () => {
    const h = harness();
    const ana = await signUp(h, 'Ana Ltd');
    const added = await call(owner, 'POST', '/api/v1/members', { email: ana.email.toUpperCase(), role: 'MEMBER' });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json()).toMatchObject({ email: ana.email, role: 'MEMBER' });
    const anaSession = await sessionOf(h, ana.browser);
    const seen = await call(anaSession, 'GET', '/api/v1/members');
    expect(seen.statusCode, seen.body).toBe(200);
    // the harness's clock stands still, so both joined at the same instant: the order is by user id then
    expect(seen.json().data.map((m: { id: string }) => m.id)).toEqual([ownerId, added.json().id].sort());

    const someone = await signUp(h, 'Someone Ltd');
    const refused = await call(anaSession, 'POST', '/api/v1/members', { email: someone.email });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ code: 'FORBIDDEN', message: expect.stringContaining('only an administrator') });
    expect((await call(anaSession, 'DELETE', `/api/v1/members/${ownerId}`)).statusCode).toBe(403);

    const again = await call(owner, 'POST', '/api/v1/members', { email: ana.email });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toMatch(/^email .* is already a member/);

    const removed = await call(owner, 'DELETE', `/api/v1/members/${added.json().id}`);
    expect(removed.statusCode, removed.body).toBe(204);
    expect((await membersOf(h, h.tenant.organizationId)).map((m) => m.user_id)).toEqual([ownerId]);
    // removed: Ana's session no longer reaches the tenant
    expect((await call(anaSession, 'GET', '/api/v1/members')).statusCode).toBe(404);
  });

  it('says what is wrong with an unknown e-mail (404), a malformed one and a wrong role (400), and writes nothing', async () => {
    const h = harness();
    const unknown = await call(owner, 'POST', '/api/v1/members', { email: 'nobody@nowhere.test' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ code: 'NOT_FOUND', message: 'email matches no user (nobody@nowhere.test); they sign up at /signup first, then you add them' });
    const malformed = await call(owner, 'POST', '/api/v1/members', { email: 'not-an-email' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringMatching(/^email must be an e-mail address, e.g./) });
    const role = await call(owner, 'POST', '/api/v1/members', { email: 'x@y.test', role: 'OWNER' });
    expect(role.statusCode).toBe(400);
    expect(role.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('role') });
    expect(await membersOf(h, h.tenant.organizationId)).toHaveLength(1);
  });

  it('never removes the last ADMIN (409); with a second ADMIN, one may leave', async () => {
    const h = harness();
    const last = await call(owner, 'DELETE', `/api/v1/members/${ownerId}`);
    expect(last.statusCode).toBe(409);
    expect(last.json()).toEqual({ code: 'CONFLICT', message: expect.stringContaining('last administrator') });

    const bo = await signUp(h, 'Bo Ltd');
    const added = await call(owner, 'POST', '/api/v1/members', { email: bo.email, role: 'ADMIN' });
    expect(added.statusCode, added.body).toBe(201);
    const boSession = await sessionOf(h, bo.browser);
    expect((await call(boSession, 'DELETE', `/api/v1/members/${added.json().id}`)).statusCode).toBe(204);
    expect(await membersOf(h, h.tenant.organizationId)).toEqual([{ user_id: ownerId, role: 'ADMIN' }]);
  });

  it('refuses API keys on writes (403): a key belongs to one environment, a member reaches both', async () => {
    const h = harness();
    const cy = await signUp(h, 'Cy Ltd');
    const byKey = await h.request('POST', '/api/v1/members', { body: { email: cy.email } });
    expect(byKey.statusCode).toBe(403);
    expect(byKey.json()).toEqual({ code: 'FORBIDDEN', message: expect.stringContaining('an API key or OAuth token may only list them') });
    expect((await h.request('DELETE', `/api/v1/members/${ownerId}`)).statusCode).toBe(403);
    expect(await membersOf(h, h.tenant.organizationId)).toHaveLength(1);
  });

  it("keeps organizations apart: B's key does not list A's members, A cannot remove B's owner", async () => {
    const h = harness();
    const theirs = await h.request('GET', '/api/v1/members', { key: h.other.apiKey });
    expect(theirs.statusCode).toBe(200);
    expect(theirs.json().data).toHaveLength(1);
    expect(theirs.json().data[0].id).not.toBe(ownerId);
    const theirOwner = theirs.json().data[0].id as string;
    const remove = await call(owner, 'DELETE', `/api/v1/members/${theirOwner}`);
    expect(remove.statusCode).toBe(404);
    expect(remove.json()).toEqual({ code: 'NOT_FOUND', message: 'member not found' });
    expect(await membersOf(h, h.other.organizationId)).toEqual([{ user_id: theirOwner, role: 'ADMIN' }]);
  });
});
