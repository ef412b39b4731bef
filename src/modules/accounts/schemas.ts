import { Type } from 'typebox';
import { iso, isoOrNull, Nullable } from '../../http/schemas.js';
import type { ApiKeyRow, CreatedApiKey, TenantRow } from './service.js';

export const Tenant = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  name: Type.String(),
  environment: Type.Enum(['production', 'sandbox']),
  disable_emails: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
});

export const TenantSettingsPatch = Type.Object({
  disable_emails: Type.Optional(Type.Boolean({ description: 'Sandbox setting: when true, no e-mail goes to this tenant\'s customers.' })),
});

export const ApiKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  hint: Type.String({ description: 'First and last characters of the key; the key itself is shown only at creation.' }),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Nullable(Type.String({ format: 'date-time' })),
  revoked_at: Nullable(Type.String({ format: 'date-time' })),
});

export const CreatedApiKeySchema = Type.Intersect([ApiKey, Type.Object({ key: Type.String() })]);

export const CreateApiKeyBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) });

export function tenantToWire(row: TenantRow) {
  return {
    id: row.id,
    organization_id: row.organization_id,
    name: row.name,
    environment: row.environment,
    disable_emails: row.disable_emails,
    created_at: iso(row.created_at),
  };
}

export function apiKeyToWire(row: ApiKeyRow) {
  return {
    id: row.id,
    name: row.name,
    hint: row.hint,
    created_at: iso(row.created_at),
    last_used_at: isoOrNull(row.last_used_at),
    revoked_at: isoOrNull(row.revoked_at),
  };
}

export function createdApiKeyToWire(row: CreatedApiKey) {
  return { ...apiKeyToWire(row), key: row.key };
}
