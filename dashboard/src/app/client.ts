import { createSessionClient } from '@tally-billing/sdk';

/** What every API call carries; set by the session provider when the session or the tenant changes. */
const current = { csrfToken: '', tenantId: undefined as string | undefined };

export function configureClient(options: { csrfToken: string; tenantId: string | undefined }): void {
  current.csrfToken = options.csrfToken;
  current.tenantId = options.tenantId;
}

/**
 * The one API client of the dashboard (sdk/README.md, "Browser"): the session's cookie, its CSRF
 * token and the chosen tenant on every call; a refusal throws a BillingApiError, which the
 * query and form helpers show (app/api.ts).
 */
export const client = createSessionClient({ csrfToken: () => current.csrfToken, tenantId: () => current.tenantId, throwOnError: true });
