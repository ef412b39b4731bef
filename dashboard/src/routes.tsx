import type { ComponentType } from 'react';
import type { RouteObject } from 'react-router';
import { Layout } from './app/Layout';
import { NotFound } from './components/NotFound';

/**
 * Every screen of the dashboard, in one list (docs/dashboard.md, "Adding a screen"). `nav` puts
 * it in the side navigation under its section; screens without `nav` (details) are reached by
 * links. Each screen is loaded on first visit, so its code is not in the first download.
 */
export interface Screen {
  path: string;
  /** The browser tab's title and the screen's heading. */
  title: string;
  nav?: { section: NavSection; label: string };
  load: () => Promise<{ default: ComponentType }>;
}

export const NAV_SECTIONS = ['Overview', 'Billing', 'Catalog', 'Developers', 'Settings'] as const;
export type NavSection = (typeof NAV_SECTIONS)[number];

export const screens: Screen[] = [
  { path: '/', title: 'Home', nav: { section: 'Overview', label: 'Home' }, load: () => import('./screens/home/HomeScreen') },
  // Billing (docs/dashboard.md, "Customers")
  { path: '/customers', title: 'Customers', nav: { section: 'Billing', label: 'Customers' }, load: () => import('./screens/customers/CustomersScreen') },
  { path: '/customers/:customerId', title: 'Customer', load: () => import('./screens/customers/CustomerScreen') },
  // Billing (docs/dashboard.md, "Subscriptions")
  { path: '/subscriptions', title: 'Subscriptions', nav: { section: 'Billing', label: 'Subscriptions' }, load: () => import('./screens/subscriptions/SubscriptionsScreen') },
  { path: '/subscriptions/new', title: 'New subscription', load: () => import('./screens/subscriptions/NewSubscriptionScreen') },
  { path: '/subscriptions/:subscriptionId', title: 'Subscription', load: () => import('./screens/subscriptions/SubscriptionScreen') },
  // Billing (docs/dashboard.md, "Invoices and credit notes")
  { path: '/invoices', title: 'Invoices', nav: { section: 'Billing', label: 'Invoices' }, load: () => import('./screens/invoices/InvoicesScreen') },
  { path: '/invoices/:invoiceId', title: 'Invoice', load: () => import('./screens/invoices/InvoiceScreen') },
  { path: '/credit-notes', title: 'Credit notes', nav: { section: 'Billing', label: 'Credit notes' }, load: () => import('./screens/invoices/CreditNotesScreen') },
  { path: '/credit-notes/:creditNoteId', title: 'Credit note', load: () => import('./screens/invoices/CreditNoteScreen') },
  // Catalog (docs/dashboard.md, "Catalog")
  { path: '/catalog/plans', title: 'Plans', nav: { section: 'Catalog', label: 'Plans' }, load: () => import('./screens/catalog/PlansScreen') },
  { path: '/catalog/plans/new', title: 'New plan', load: () => import('./screens/catalog/NewPlanScreen') },
  { path: '/catalog/plans/:planId', title: 'Plan', load: () => import('./screens/catalog/PlanDetailScreen') },
  { path: '/catalog/plans/:planId/edit', title: 'New plan version', load: () => import('./screens/catalog/PlanVersionEditorScreen') },
  { path: '/catalog/addons', title: 'Add-ons', nav: { section: 'Catalog', label: 'Add-ons' }, load: () => import('./screens/catalog/AddonsScreen') },
  { path: '/catalog/coupons', title: 'Coupons', nav: { section: 'Catalog', label: 'Coupons' }, load: () => import('./screens/catalog/CouponsScreen') },
  { path: '/catalog/products', title: 'Products', nav: { section: 'Catalog', label: 'Products' }, load: () => import('./screens/catalog/ProductsScreen') },
  { path: '/catalog/product-families', title: 'Product families', nav: { section: 'Catalog', label: 'Product families' }, load: () => import('./screens/catalog/FamiliesScreen') },
  { path: '/catalog/metrics', title: 'Billable metrics', nav: { section: 'Catalog', label: 'Billable metrics' }, load: () => import('./screens/catalog/MetricsScreen') },
  { path: '/catalog/metrics/:metricId', title: 'Billable metric', load: () => import('./screens/catalog/MetricDetailScreen') },
  { path: '/catalog/features', title: 'Features', nav: { section: 'Catalog', label: 'Features' }, load: () => import('./screens/catalog/FeaturesScreen') },
  { path: '/developers/api-keys', title: 'API keys', nav: { section: 'Developers', label: 'API keys' }, load: () => import('./screens/developers/ApiKeysScreen') },
  { path: '/developers/webhooks', title: 'Webhook endpoints', nav: { section: 'Developers', label: 'Webhooks' }, load: () => import('./screens/developers/WebhooksScreen') },
  { path: '/developers/webhooks/:endpointId', title: 'Webhook endpoint', load: () => import('./screens/developers/WebhookEndpointScreen') },
  { path: '/developers/oauth-apps', title: 'OAuth apps', nav: { section: 'Developers', label: 'OAuth apps' }, load: () => import('./screens/developers/OAuthAppsScreen') },
  { path: '/developers/oauth-apps/:appId', title: 'OAuth app', load: () => import('./screens/developers/OAuthAppScreen') },
  // Developers and Settings, the rest of issue 18 (docs/dashboard.md, "Developers and Settings")
  { path: '/developers/events', title: 'Events ingested', nav: { section: 'Developers', label: 'Events ingested' }, load: () => import('./screens/developers/EventsScreen') },
  { path: '/developers/batch-jobs', title: 'Batch jobs', nav: { section: 'Developers', label: 'Batch jobs' }, load: () => import('./screens/developers/BatchJobsScreen') },
  { path: '/developers/batch-jobs/:jobId', title: 'Batch job', load: () => import('./screens/developers/BatchJobScreen') },
  { path: '/settings/environment', title: 'Environment settings', nav: { section: 'Settings', label: 'Environment' }, load: () => import('./screens/settings/TenantSettingsScreen') },
  { path: '/settings/invoicing-entities', title: 'Invoicing entities', nav: { section: 'Settings', label: 'Invoicing entities' }, load: () => import('./screens/settings/InvoicingEntitiesScreen') },
  { path: '/settings/connected-accounts', title: 'Connected accounts', nav: { section: 'Settings', label: 'Connected accounts' }, load: () => import('./screens/settings/ConnectedAccountsScreen') },
  { path: '/settings/members', title: 'Organizations and members', nav: { section: 'Settings', label: 'Members' }, load: () => import('./screens/settings/MembersScreen') },
];

export const routeObjects: RouteObject[] = [
  {
    element: <Layout />,
    children: [
      ...screens.map(
        (screen): RouteObject => ({
          path: screen.path,
          handle: { title: screen.title },
          lazy: async () => ({ Component: (await screen.load()).default }),
        }),
      ),
      { path: '*', handle: { title: 'Not found' }, element: <NotFound what="page" /> },
    ],
  },
];
