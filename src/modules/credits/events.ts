import { formatMinor } from '../../kernel/money.js';
import type { GrantRow } from './repository.js';

/** `data` of credit_grant.* events: the grant's identity, kind and value (decimal strings). */
export function grantEventData(grant: GrantRow): Record<string, unknown> {
  return {
    grant_id: grant.id,
    customer_id: grant.customer_id,
    name: grant.name,
    type: grant.grant_type,
    source: grant.source,
    status: grant.status,
    currency: grant.currency,
    amount: formatMinor(grant.amount_minor, grant.currency),
    invoice_id: grant.invoice_id,
    effective_at: grant.effective_at.toISOString(),
    expires_at: grant.expires_at?.toISOString() ?? null,
  };
}
