// Example values for the OpenAPI document (routes.ts); shaped as the wire schemas in schemas.ts.

export const tenantExample = {
  id: 'ten_01KKRNW4G0YP2BYC422HBNQ2F1',
  organization_id: 'org_01KKRNW4G0BWFK70K1Y5H5S3VZ',
  name: 'sandbox',
  environment: 'sandbox' as const,
  disable_emails: false,
  created_at: '2026-03-15T12:00:00.000Z',
};

export const apiKeyExample = {
  id: 'key_01KKRNW4G049QGDCBA9VP1Z2J1',
  name: 'CI pipeline',
  hint: 'sk_sandbox_BrRY...OU0H',
  created_at: '2026-03-15T12:00:00.000Z',
  last_used_at: '2026-03-16T08:41:07.000Z',
  revoked_at: null,
};
