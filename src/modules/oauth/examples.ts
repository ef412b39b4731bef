// Examples of the OpenAPI document: the platform "Acme Platform" and a merchant it connects,
// as an express account (Shop Ltd) or through the authorization-code flow.
import type { Static } from 'typebox';
import type { ConnectedAccount, CreatedExpressAccount, CreateExpressAccountRequest, CreateOAuthAppRequest, OAuthApp, OAuthAppWithSecret } from './schemas.js';

type Account = Static<typeof ConnectedAccount>;

export const APP_ID = 'app_01KKRNW4G0J9M0T97HSMTTZGH4';
export const ACCOUNT_ID = 'cacc_01KKRNW4G01TWW1MA04T5FX9C8';
const CALLBACK = 'https://platform.example.com/oauth/callback';

export const createAppExample: Static<typeof CreateOAuthAppRequest> = { name: 'Acme Platform', redirect_uris: [CALLBACK] };

export const appExample: Static<typeof OAuthApp> = {
  id: APP_ID,
  client_id: APP_ID,
  name: 'Acme Platform',
  redirect_uris: [CALLBACK],
  client_secret_hint: 'cs_Edbo...TtJj',
  created_at: '2026-03-02T11:40:18.905Z',
  updated_at: '2026-03-02T11:40:18.905Z',
};

export const appWithSecretExample: Static<typeof OAuthAppWithSecret> = { ...appExample, client_secret: 'cs_Edbo4KkRlW9L7oE3x8Gg2xfMXitfo6tTm6KZTtJj' };

export const updateAppExample = { redirect_uris: [CALLBACK, 'http://127.0.0.1:9000/callback'] };

export const updatedAppExample: Static<typeof OAuthApp> = { ...appExample, redirect_uris: updateAppExample.redirect_uris, updated_at: '2026-03-09T16:05:51.372Z' };

export const rotatedAppExample: Static<typeof OAuthAppWithSecret> = {
  ...appExample, client_secret_hint: 'cs_9QzT...w2Lm', client_secret: 'cs_9QzTq1mV7cK3yR8pX0bN4sD6fH2jL5aE9uW1w2Lm', updated_at: '2026-03-14T07:58:33.016Z',
};

export const createExpressExample: Static<typeof CreateExpressAccountRequest> = {
  email: 'owner@shop.example',
  organization_name: 'Shop Ltd',
  country: 'FR',
  metadata: { platform_ref: 'merchant-4411' },
  return_url: 'https://platform.example.com/express/done',
};

const pendingAccount: Account = {
  id: ACCOUNT_ID,
  type: 'express',
  status: 'PENDING',
  oauth_app_id: null,
  organization_id: null,
  tenant_id: null,
  email: 'owner@shop.example',
  organization_name: 'Shop Ltd',
  country: 'FR',
  legal_name: null,
  vat_number: null,
  metadata: { platform_ref: 'merchant-4411' },
  created_at: '2026-03-15T10:00:00.000Z',
  activated_at: null,
  revoked_at: null,
};

export const onboardingLinkExample = {
  url: 'https://billing.example.com/connect/onboarding/onb_Ki1wHcqdDamZ2XKN1PJRk9CQbCdI7MYCiI36O6vz',
  expires_at: '2026-03-22T10:00:00.000Z',
};

export const createdExpressExample: Static<typeof CreatedExpressAccount> = { ...pendingAccount, onboarding_link: onboardingLinkExample };

/** Onboarded: the merchant's organization and production tenant exist. */
export const activeAccountExample: Account = {
  ...pendingAccount,
  status: 'ACTIVE',
  organization_id: 'org_01KKRQ7M3B5D7F9H1K3N5Q7S9V',
  tenant_id: 'ten_01KKRQ7M3B2C4E6G8J0M2P4R6T',
  legal_name: 'Shop Limited',
  vat_number: 'FR12345678901',
  activated_at: '2026-03-15T10:26:44.311Z',
};

export const accountListExample = { data: [activeAccountExample], pagination_meta: { page: 0, per_page: 10, total_items: 1, total_pages: 1 } };

export const revokedAccountExample: Account = { ...activeAccountExample, status: 'REVOKED', revoked_at: '2026-03-20T17:45:02.558Z' };
export const suspendedAccountExample: Account = { ...activeAccountExample, status: 'SUSPENDED' };

export const authorizationCodeExample = {
  grant_type: 'authorization_code',
  code: 'oac_q8Xw2nV4bR6tY9pL1mK3jH5gF7dS0aZ2cE4vB6nM',
  redirect_uri: CALLBACK,
  code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
};
export const refreshTokenExample = { grant_type: 'refresh_token', refresh_token: 'ort_7fKq2Lw9Xc4Vb1Nm6Rt3Yp8Zs5Ad0Gh2Jk4Ue6Wi8O' };
export const tokenExample = {
  access_token: 'oat_Jd83kLq0Zp5Vn2Xc7Rb4Tm9Wy1Ks6Fh3Ga8Ue0Io5P',
  token_type: 'Bearer',
  expires_in: 3600,
  refresh_token: 'ort_Np4Qw7Er2Ty9Ui1Op6As3Df8Gh0Jk5Lz2Xc7Vb4Nm',
};
export const introspectRequestExample = { token: tokenExample.access_token, token_type_hint: 'access_token' };
export const activeTokenExample = {
  active: true,
  client_id: APP_ID,
  token_type: 'Bearer',
  exp: 1773579600,
  iat: 1773576000,
  sub: 'usr_01KKRQ7M3BA1C3E5G7J9K1N3Q5',
  organization_id: 'org_01KKRQ7M3B5D7F9H1K3N5Q7S9V',
  tenant_id: 'ten_01KKRQ7M3B2C4E6G8J0M2P4R6T',
  connected_account_id: 'cacc_01KKRQ7M3BX4Z6B8D0F2H4K6M8',
};
export const revokeRequestExample = { token: refreshTokenExample.refresh_token, token_type_hint: 'refresh_token' };
