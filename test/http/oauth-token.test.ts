import { describe, expect, it } from 'vitest';
import { MS_PER_DAY, MS_PER_MINUTE, MS_PER_SECOND } from '../../src/kernel/clock.js';
import { hashSecret } from '../../src/kernel/secrets.js';
import { useHarness } from '../harness/app.js';
import { approve, authorizeUrl, Browser, connectMerchant, createClient, csrfOf, hiddenFields, pkce, signUp, tokenRequest } from './oauth-helpers.js';

const harness = useHarness();

describe('authorization endpoint', () => {
  it('shows errors on its own page, never redirecting, until client and redirect URI are known good', async () => {
    const h = harness();
    const client = await createClient(h);
    const { challenge } = pkce();
    const browser = new Browser(h);
    const cases = [
      authorizeUrl({ ...client, clientId: 'app_UNKNOWN' }, { code_challenge: challenge }),
      authorizeUrl(client, { client_id: undefined, code_challenge: challenge }).replace(/client_id=[^&]*&?/, ''),
      authorizeUrl({ ...client, redirectUri: 'https://platform.example/callback/other' }, { code_challenge: challenge }),
      authorizeUrl({ ...client, redirectUri: 'https://platform.example/callback?x=1' }, { code_challenge: challenge }),
      authorizeUrl({ ...client, redirectUri: 'https://platform.example/CALLBACK' }, { code_challenge: challenge }),
    ];
    for (const url of cases) {
      const res = await browser.get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.body).toContain('role="alert"');
    }
    const mismatch = await browser.get(cases[2]!);
    expect(mismatch.body).toContain('redirect_uri is not registered for this application');
  });

  it('redirects protocol errors back with state: plain and unknown methods, missing challenge, wrong response_type', async () => {
    const h = harness();
    const client = await createClient(h);
    const { challenge } = pkce();
    const browser = new Browser(h);
    const cases: [Record<string, string | undefined>, string, string][] = [
      [{ code_challenge: challenge, code_challenge_method: 'plain' }, 'invalid_request', "code_challenge_method must be S256; 'plain' is not supported"],
      [{ code_challenge: challenge, code_challenge_method: 'S512' }, 'invalid_request', 'code_challenge_method must be S256'],
      [{ code_challenge: undefined }, 'invalid_request', 'code_challenge is required'],
      [{ code_challenge: 'short' }, 'invalid_request', 'code_challenge must be the base64url SHA-256'],
      [{ code_challenge: challenge, response_type: 'token' }, 'unsupported_response_type', 'response_type must be code'],
    ];
    for (const [params, error, description] of cases) {
      const res = await browser.get(authorizeUrl(client, params));
      expect(res.statusCode).toBe(302);
      const location = new URL(res.headers.location as string);
      expect(`${location.origin}${location.pathname}`).toBe(client.redirectUri);
      expect(location.searchParams.get('error')).toBe(error);
      expect(location.searchParams.get('error_description')).toContain(description);
      expect(location.searchParams.get('state')).toBe('st-123');
      expect(location.searchParams.get('code')).toBeNull();
    }
  });

  it('sends a visitor who is not signed in to sign in, then back to the consent screen', async () => {
    const h = harness();
    const client = await createClient(h);
    const merchant = await signUp(h);
    const browser = new Browser(h);
    const url = authorizeUrl(client, { code_challenge: pkce().challenge });
    const first = await browser.get(url);
    expect(first.statusCode).toBe(302);
    expect(first.headers.location).toBe(`/signin?return_to=${encodeURIComponent(url)}`);
    const form = await browser.get(first.headers.location as string);
    expect(form.body).toContain(`name="return_to" value="${url.replace(/&/g, '&amp;')}"`);
    const wrong = await browser.post('/signin', { _csrf: csrfOf(form.body), email: merchant.email, password: 'wrong password', return_to: url });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('The e-mail or the password is wrong.');
    const signedIn = await browser.post('/signin', { _csrf: csrfOf(wrong.body), email: merchant.email, password: merchant.password, return_to: url });
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toBe(url);
    const consent = await browser.get(url);
    expect(consent.statusCode).toBe(200);
    expect(consent.body).toContain('<strong>Acme Platform</strong> asks for full access');
    expect(consent.body).toContain('<option value="org_');
    expect(consent.headers['x-frame-options']).toBe('DENY');
  });

  it('deny redirects with access_denied and state; a consent without CSRF token is refused', async () => {
    const h = harness();
    const client = await createClient(h);
    const merchant = await signUp(h);
    const denied = await approve(merchant.browser, client, pkce().challenge, 'deny');
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('state')).toBe('st-123');
    expect(denied.searchParams.get('code')).toBeNull();

    const consent = await merchant.browser.get(authorizeUrl(client, { code_challenge: pkce().challenge }));
    const fields = hiddenFields(consent.body);
    const forged = await merchant.browser.post('/api/v1/oauth/authorize', { ...fields, _csrf: 'forged', organization_id: 'x', decision: 'approve' });
    expect(forged.statusCode).toBe(403);
    expect(forged.headers.location).toBeUndefined();
  });
});

describe('token endpoint', () => {
  it('exchanges a code for a token pair that acts on the connected organization\'s production tenant', async () => {
    const h = harness();
    const client = await createClient(h);
    const { tokens, code } = await connectMerchant(h, client);
    expect(tokens).toEqual({ access_token: expect.stringMatching(/^oat_/), refresh_token: expect.stringMatching(/^ort_/), token_type: 'Bearer', expires_in: 3600 });
    const tenant = await h.request('GET', '/api/v1/tenant', { key: tokens.access_token });
    expect(tenant.statusCode).toBe(200);
    expect(tenant.json().environment).toBe('production');
    expect(tenant.json().organization_id).not.toBe(h.tenant.organizationId);
    // only hashes are stored
    const rows = await h.db.pool.query(`SELECT token_hash FROM oauth_tokens UNION ALL SELECT code_hash FROM oauth_codes`);
    const stored = rows.rows.map((r) => r.token_hash);
    expect(stored).toContain(hashSecret(tokens.access_token));
    expect(stored).toContain(hashSecret(code));
    expect(stored.join()).not.toContain(tokens.access_token);
  });

  it('refuses a replayed code and revokes every token issued from it', async () => {
    const h = harness();
    const client = await createClient(h);
    const { tokens, code, verifier } = await connectMerchant(h, client);
    const replay = await tokenRequest(h, client, { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier });
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toEqual({ error: 'invalid_grant', error_description: 'code was already used; every token issued from it has been revoked' });
    expect(replay.headers['cache-control']).toBe('no-store');
    expect((await h.request('GET', '/api/v1/tenant', { key: tokens.access_token })).statusCode).toBe(401);
    const refresh = await tokenRequest(h, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(refresh.json().error).toBe('invalid_grant');
  });

  it('refuses an expired code, a wrong verifier and a different redirect_uri', async () => {
    const h = harness();
    const client = await createClient(h);
    const merchant = await signUp(h);
    const exchange = async (mutate: (f: Record<string, string>) => void, advanceMs = 0) => {
      const { verifier, challenge } = pkce();
      const code = (await approve(merchant.browser, client, challenge)).searchParams.get('code')!;
      h.clock.advance(advanceMs);
      const form = { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier };
      mutate(form);
      return tokenRequest(h, client, form);
    };
    const expired = await exchange(() => {}, 10 * MS_PER_MINUTE + MS_PER_SECOND);
    expect(expired.json()).toEqual({ error: 'invalid_grant', error_description: 'code has expired (codes live 10 minutes)' });
    const justInTime = await exchange(() => {}, 10 * MS_PER_MINUTE - MS_PER_SECOND);
    expect(justInTime.statusCode).toBe(200);
    const wrongVerifier = await exchange((f) => (f.code_verifier = pkce().verifier));
    expect(wrongVerifier.json()).toEqual({ error: 'invalid_grant', error_description: 'code_verifier does not match the code_challenge (PKCE S256)' });
    const wrongRedirect = await exchange((f) => (f.redirect_uri = 'https://platform.example/other'));
    expect(wrongRedirect.json()).toEqual({ error: 'invalid_grant', error_description: 'redirect_uri does not match the one of the authorization request' });
    const missingVerifier = await exchange((f) => delete f.code_verifier);
    expect(missingVerifier.json()).toEqual({ error: 'invalid_request', error_description: 'code_verifier is required' });
  });

  it('requires HTTP Basic client credentials and the right secret', async () => {
    const h = harness();
    const client = await createClient(h);
    const other = await createClient(h, 'https://other.example/cb');
    const { code, verifier } = await (async () => {
      const merchant = await signUp(h);
      const { verifier, challenge } = pkce();
      return { code: (await approve(merchant.browser, client, challenge)).searchParams.get('code')!, verifier };
    })();
    const form = { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier };
    const wrongSecret = await tokenRequest(h, client, form, 'token', 'cs_wrong');
    expect(wrongSecret.statusCode).toBe(401);
    expect(wrongSecret.json()).toEqual({ error: 'invalid_client', error_description: 'client authentication failed: unknown client_id or wrong client_secret' });
    expect(wrongSecret.headers['www-authenticate']).toContain('Basic');
    const noAuth = await h.service.app.inject({ method: 'POST', url: '/api/v1/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ ...form, client_id: client.clientId, client_secret: client.clientSecret }).toString() });
    expect(noAuth.statusCode).toBe(401);
    expect(noAuth.json().error).toBe('invalid_client');
    const otherClient = await tokenRequest(h, other, form);
    expect(otherClient.json()).toEqual({ error: 'invalid_grant', error_description: 'code is invalid or was issued to another client' });
    const json = await h.service.app.inject({ method: 'POST', url: '/api/v1/oauth/token', headers: { authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}` }, payload: form });
    expect(json.json()).toEqual({ error: 'invalid_request', error_description: 'the body must be application/x-www-form-urlencoded' });
    const grantType = await tokenRequest(h, client, { grant_type: 'password', username: 'a', password: 'b' });
    expect(grantType.json()).toEqual({ error: 'unsupported_grant_type', error_description: "grant_type 'password' is not supported; use authorization_code or refresh_token" });
  });

  it('rotates refresh tokens; reusing a rotated one revokes the whole grant', async () => {
    const h = harness();
    const client = await createClient(h);
    const { tokens } = await connectMerchant(h, client);
    const first = await tokenRequest(h, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(first.statusCode).toBe(200);
    const pair = first.json();
    expect(pair.refresh_token).not.toBe(tokens.refresh_token);
    expect((await h.request('GET', '/api/v1/tenant', { key: pair.access_token })).statusCode).toBe(200);
    const reuse = await tokenRequest(h, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(reuse.json()).toEqual({ error: 'invalid_grant', error_description: 'refresh_token was already used; every token of this grant has been revoked' });
    expect((await h.request('GET', '/api/v1/tenant', { key: pair.access_token })).statusCode).toBe(401);
    const next = await tokenRequest(h, client, { grant_type: 'refresh_token', refresh_token: pair.refresh_token });
    expect(next.json().error).toBe('invalid_grant');
  });

  it('expires access tokens after 1 hour and refresh tokens after 30 days', async () => {
    const h = harness();
    const client = await createClient(h);
    const { tokens } = await connectMerchant(h, client);
    h.clock.advance(3600 * MS_PER_SECOND - MS_PER_SECOND);
    expect((await h.request('GET', '/api/v1/tenant', { key: tokens.access_token })).statusCode).toBe(200);
    h.clock.advance(MS_PER_SECOND);
    const expired = await h.request('GET', '/api/v1/tenant', { key: tokens.access_token });
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toEqual({ code: 'UNAUTHORIZED', message: 'invalid, expired or revoked token' });
    expect((await tokenRequest(h, client, { token: tokens.access_token }, 'introspect')).json()).toEqual({ active: false });
    h.clock.advance(30 * MS_PER_DAY);
    expect((await tokenRequest(h, client, { token: tokens.refresh_token }, 'introspect')).json()).toEqual({ active: false });
    const refresh = await tokenRequest(h, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(refresh.json()).toEqual({ error: 'invalid_grant', error_description: 'refresh_token has expired (refresh tokens live 30 days)' });
  });
});

describe('introspection and revocation', () => {
  it('introspects a valid token with metadata and anything else as active false only', async () => {
    const h = harness();
    const client = await createClient(h);
    const other = await createClient(h, 'https://other.example/cb');
    const { tokens } = await connectMerchant(h, client);
    const res = await tokenRequest(h, client, { token: tokens.access_token }, 'introspect');
    expect(res.statusCode).toBe(200);
    const nowSeconds = Math.floor(h.clock.now().getTime() / 1000);
    expect(res.json()).toEqual({
      active: true,
      client_id: client.clientId,
      token_type: 'Bearer',
      iat: nowSeconds,
      exp: nowSeconds + 3600,
      sub: expect.stringMatching(/^usr_/),
      organization_id: expect.stringMatching(/^org_/),
      tenant_id: expect.stringMatching(/^ten_/),
      connected_account_id: expect.stringMatching(/^cacc_/),
    });
    expect((await tokenRequest(h, client, { token: tokens.refresh_token, token_type_hint: 'refresh_token' }, 'introspect')).json()).toMatchObject({ active: true, token_type: 'refresh_token', exp: nowSeconds + 30 * 86400 });
    for (const token of ['garbage', 'oat_unknown', '']) {
      const bad = await tokenRequest(h, client, { token }, 'introspect');
      if (token === '') {
        expect(bad.json()).toEqual({ error: 'invalid_request', error_description: 'token is required' });
      } else {
        expect(bad.statusCode).toBe(200);
        expect(bad.json()).toEqual({ active: false });
      }
    }
    expect((await tokenRequest(h, other, { token: tokens.access_token }, 'introspect')).json()).toEqual({ active: false });
    expect((await tokenRequest(h, client, { token: tokens.access_token }, 'introspect', 'cs_bad')).statusCode).toBe(401);
  });

  it('revokes with 200 whether or not the token existed; a refresh token takes its access tokens along', async () => {
    const h = harness();
    const client = await createClient(h);
    const unknown = await tokenRequest(h, client, { token: 'ort_never_issued' }, 'revoke');
    expect(unknown.statusCode).toBe(200);
    expect(unknown.body).toBe('');

    const a = (await connectMerchant(h, client)).tokens;
    expect((await tokenRequest(h, client, { token: a.access_token }, 'revoke')).statusCode).toBe(200);
    expect((await h.request('GET', '/api/v1/tenant', { key: a.access_token })).statusCode).toBe(401);
    expect((await tokenRequest(h, client, { token: a.access_token }, 'introspect')).json()).toEqual({ active: false });
    expect((await tokenRequest(h, client, { token: a.refresh_token }, 'introspect')).json().active).toBe(true);

    const b = (await connectMerchant(h, client)).tokens;
    expect((await tokenRequest(h, client, { token: b.refresh_token, token_type_hint: 'refresh_token' }, 'revoke')).statusCode).toBe(200);
    expect((await h.request('GET', '/api/v1/tenant', { key: b.access_token })).statusCode).toBe(401);
    expect((await tokenRequest(h, client, { grant_type: 'refresh_token', refresh_token: b.refresh_token })).json().error).toBe('invalid_grant');
    // twice is still 200
    expect((await tokenRequest(h, client, { token: b.refresh_token }, 'revoke')).statusCode).toBe(200);
    // another client cannot revoke it
    const c = (await connectMerchant(h, client)).tokens;
    const other = await createClient(h, 'https://other.example/cb');
    expect((await tokenRequest(h, other, { token: c.access_token }, 'revoke')).statusCode).toBe(200);
    expect((await h.request('GET', '/api/v1/tenant', { key: c.access_token })).statusCode).toBe(200);
    expect((await tokenRequest(h, client, { token: c.access_token }, 'revoke', 'cs_bad')).statusCode).toBe(401);
  });

  it('answers 400 invalid_request in the RFC 6749 shape for a NUL in a field or a UTF-16 body, on all three endpoints', async () => {
    const h = harness();
    const client = await createClient(h);
    const post = (url: string, payload: string | Buffer, contentType = 'application/x-www-form-urlencoded') =>
      h.service.app.inject({ method: 'POST', url, payload, headers: { 'content-type': contentType, authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}` } });
    for (const endpoint of ['token', 'introspect', 'revoke']) {
      const url = `/api/v1/oauth/${endpoint}`;
      const nul = await post(url, 'token=%00&grant_type=refresh_token&refresh_token=a%00b');
      expect(nul.statusCode, url).toBe(400);
      expect(nul.json()).toEqual({ error: 'invalid_request', error_description: expect.stringContaining('contains a NUL character') });
      // UTF-16 read as UTF-8 holds a NUL after every ASCII character: refused whether declared or not
      const utf16 = Buffer.from('token=abc', 'utf16le');
      const undeclared = await post(url, utf16);
      expect(undeclared.statusCode, url).toBe(400);
      expect(undeclared.json().error).toBe('invalid_request');
      const declared = await post(url, utf16, 'application/x-www-form-urlencoded; charset=utf-16');
      expect(declared.statusCode, url).toBe(400);
      expect(declared.json()).toEqual({ error: 'invalid_request', error_description: 'the form body must be UTF-8 (charset=utf-8), not charset=utf-16' });
    }
  });
});
