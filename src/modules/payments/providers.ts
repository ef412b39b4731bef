// Which provider charges for a tenant: its connection (Stripe or GoCardless), else the built-in sandbox for a
// sandbox tenant, else none (nothing is charged automatically).
import type { Clock } from '../../kernel/clock.js';
import type { Queryable } from '../../db/pool.js';
import { createSecretBox } from '../../kernel/secret-box.js';
import { findTenantProfile } from '../accounts/index.js';
import type { PaymentProvider, ProviderName } from '../../adapters/payments/provider.js';
import { createSandboxProvider } from '../../adapters/payments/sandbox.js';
import { createStripeProvider } from '../../adapters/payments/stripe.js';
import { createGoCardlessProvider } from '../../adapters/payments/gocardless.js';
import * as repo from './repository.js';
import type { ConnectionRow } from './repository.js';

export interface ProvidersDeps {
  clock: Clock;
  secretKey: string;
  stripeApiBase: string;
  gocardlessApiBase: string;
}

/** The associated data of a sealed secret: it opens only on its own connection row. */
export const sealContext = (tenantId: string, connectionId: string, field: string) => `${tenantId}/${connectionId}/${field}`;

export function createProviders(deps: ProvidersDeps) {
  const box = createSecretBox(deps.secretKey, 'payment-provider-credentials');
  const sandbox = createSandboxProvider(deps.clock);

  function forConnection(connection: ConnectionRow): PaymentProvider {
    const open = (sealed: string | null, field: string) => (sealed === null ? null : box.open(sealed, sealContext(connection.tenant_id, connection.id, field)));
    const secretKey = open(connection.secret_key_sealed, 'secret_key')!;
    const webhookSecret = open(connection.webhook_secret_sealed, 'webhook_secret');
    if (connection.provider === 'gocardless') return createGoCardlessProvider({ accessToken: secretKey, webhookSecret, apiBase: deps.gocardlessApiBase });
    return createStripeProvider({ secretKey, webhookSecret, apiBase: deps.stripeApiBase });
  }

  /** The tenant's provider now, or null when it has none. */
  async function forTenant(db: Queryable, tenantId: string): Promise<PaymentProvider | null> {
    const [connection] = await repo.listConnections(db, tenantId);
    if (connection) return forConnection(connection);
    const tenant = await findTenantProfile(db, tenantId);
    return tenant?.environment === 'sandbox' ? sandbox : null;
  }

  /** The provider that holds a payment made earlier (methods and attempts name theirs). */
  async function byName(db: Queryable, tenantId: string, name: ProviderName): Promise<PaymentProvider | null> {
    if (name === 'sandbox') return sandbox;
    const connection = (await repo.listConnections(db, tenantId)).find((c) => c.provider === name);
    return connection ? forConnection(connection) : null;
  }

  return { box, sandbox, forConnection, forTenant, byName };
}

export type Providers = ReturnType<typeof createProviders>;
