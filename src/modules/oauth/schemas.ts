import { Type } from 'typebox';
import { iso, isoOrNull, Nullable } from '../../http/schemas.js';
import type { AppWithSecret, OAuthAppRow } from './apps-service.js';
import type { ConnectedAccountRow, OnboardingLink } from './connect-service.js';

const RedirectUris = Type.Array(Type.String({ description: 'Absolute URL, matched exactly: https, or http on localhost/loopback only; no wildcards, no fragment.' }), { minItems: 1, maxItems: 10 });

export const OAuthApp = Type.Object({
  id: Type.String({ description: 'App id (`app_...`).' }),
  client_id: Type.String({ description: 'The OAuth client_id; equal to the app id.' }),
  name: Type.String({ description: 'Shown to merchants on the consent screen.' }),
  redirect_uris: RedirectUris,
  client_secret_hint: Type.String({ description: 'First and last characters of the client secret; the secret itself is shown only at creation and rotation.' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const OAuthAppWithSecret = Type.Intersect([OAuthApp, Type.Object({ client_secret: Type.String({ description: 'Shown once; store it now.' }) })]);

export const CreateOAuthAppRequest = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  redirect_uris: RedirectUris,
});

export const UpdateOAuthAppRequest = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  redirect_uris: Type.Optional(RedirectUris),
});

export function appToWire(row: OAuthAppRow) {
  return {
    id: row.id,
    client_id: row.id,
    name: row.name,
    redirect_uris: row.redirect_uris,
    client_secret_hint: row.secret_hint,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function appWithSecretToWire(result: AppWithSecret) {
  return { ...appToWire(result.app), client_secret: result.clientSecret };
}

export const AccountTypeSchema = Type.Enum(['standard', 'express']);
export const AccountStatusSchema = Type.Enum(['PENDING', 'ACTIVE', 'SUSPENDED', 'REVOKED']);

export const ConnectedAccount = Type.Object({
  id: Type.String({ description: 'Connected account id (`cacc_...`).' }),
  type: AccountTypeSchema,
  status: AccountStatusSchema,
  oauth_app_id: Nullable(Type.String({ description: 'Standard accounts: the app the merchant consented to.' })),
  organization_id: Nullable(Type.String({ description: 'The connected organization; null until an express account is onboarded.' })),
  tenant_id: Nullable(Type.String({ description: 'The tenant acted on: the organization\'s production tenant.' })),
  email: Nullable(Type.String()),
  organization_name: Type.String(),
  country: Nullable(Type.String()),
  legal_name: Nullable(Type.String()),
  vat_number: Nullable(Type.String()),
  metadata: Type.Record(Type.String(), Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  activated_at: Nullable(Type.String({ format: 'date-time' })),
  revoked_at: Nullable(Type.String({ format: 'date-time' })),
});

export const OnboardingLinkSchema = Type.Object({
  url: Type.String({ description: 'Single use; send the merchant there.' }),
  expires_at: Type.String({ format: 'date-time' }),
});

export const CreatedExpressAccount = Type.Intersect([ConnectedAccount, Type.Object({ onboarding_link: OnboardingLinkSchema })]);

export const CreateExpressAccountRequest = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 320 }),
  organization_name: Type.String({ minLength: 1, maxLength: 200 }),
  country: Type.Optional(Type.String({ description: 'ISO 3166-1 alpha-2, e.g. FR' })),
  metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
  return_url: Type.String({ description: 'Where the merchant returns after onboarding (https, or http on loopback).' }),
});

export function accountToWire(row: ConnectedAccountRow) {
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    oauth_app_id: row.oauth_app_id,
    organization_id: row.organization_id,
    tenant_id: row.connected_tenant_id,
    email: row.email,
    organization_name: row.organization_name,
    country: row.country,
    legal_name: row.legal_name,
    vat_number: row.vat_number,
    metadata: row.metadata,
    created_at: iso(row.created_at),
    activated_at: isoOrNull(row.activated_at),
    revoked_at: isoOrNull(row.revoked_at),
  };
}

export function linkToWire(link: OnboardingLink) {
  return { url: link.url, expires_at: iso(link.expires_at) };
}
