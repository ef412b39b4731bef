/**
 * The catalog screens reach the API through the dashboard's one SDK client (app/client.ts: the
 * sign-in session, its CSRF token, the tenant chosen in the header bar).
 */
import { client } from '../../app/client';

/** The SDK client to pass as `client` to the SDK's operations. */
export function useCatalogClient() {
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
