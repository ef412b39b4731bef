/**
 * The catalog screens' way to the API: the generated SDK with the sign-in session
 * (createSessionClient), the session's CSRF token and the tenant chosen in the header bar.
 * Calls throw a BillingApiError (status, code, message) that components/QueryState and
 * components/forms already understand.
 */
import { useSession } from '../../app/session';
import { createSessionClient } from '../../../../sdk/src/index';

const current = { csrfToken: '', tenantId: undefined as string | undefined };

const client = createSessionClient({ csrfToken: () => current.csrfToken, tenantId: () => current.tenantId, throwOnError: true });

/** The SDK client acting on the tenant the header bar shows; read at every call. */
export function useCatalogClient() {
  const session = useSession();
  current.csrfToken = session.csrf_token;
  current.tenantId = session.tenantId;
  return client;
}

/** Lists ask for the most the API gives in one page (100): catalogs are small. */
export const PAGE = { per_page: 100 } as const;

/** Query keys of the catalog lists, so a create refetches the list it adds to. */
export const keys = {
  families: ['catalog', 'product-families'],
  products: ['catalog', 'products'],
  metrics: ['catalog', 'metrics'],
  features: ['catalog', 'features'],
  coupons: ['catalog', 'coupons'],
  plans: ['catalog', 'plans'],
  addons: ['catalog', 'addons'],
} as const;
