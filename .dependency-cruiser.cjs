/** Import rules of docs/architecture.md, checked in CI by `npm run lint`. */

/**
 * The module order of docs/architecture.md: a module may import only modules before it. Where an
 * earlier module needs a later one's data, the composition root passes a function in.
 * test/architecture/table-owners.test.ts checks that the doc lists the same order.
 */
const MODULE_ORDER = [
  'accounts', 'custom-properties', 'catalog', 'metrics', 'features', 'coupons', 'plans', 'addons', 'customers', 'subscriptions', 'checkout',
  'usage', 'batch-jobs', 'entitlements', 'alerts', 'invoices', 'credit-notes', 'credits', 'payments', 'emails', 'webhooks', 'oauth', 'web', 'portal', 'test-clocks', 'exports',
];

/** One rule per module: it may not import any module after it in MODULE_ORDER. */
const moduleOrderRules = MODULE_ORDER.slice(0, -1).map((name, index) => ({
  name: `module-order-${name}`,
  comment: `${name} may import only modules before it: ${MODULE_ORDER.slice(0, index).join(', ') || 'none'}`,
  severity: 'error',
  from: { path: `^src/modules/${name}/` },
  to: { path: `^src/modules/(${MODULE_ORDER.slice(index + 1).join('|')})/` },
}));

module.exports = {
  forbidden: [
    ...moduleOrderRules,
    {
      name: 'every-module-is-in-the-order',
      comment: 'a new module folder must be placed in MODULE_ORDER',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: `^src/modules/`, pathNot: `^src/modules/(${MODULE_ORDER.join('|')})/` },
    },
    {
      name: 'kernel-is-a-leaf',
      comment: 'src/kernel imports nothing else from src/',
      severity: 'error',
      from: { path: '^src/kernel/' },
      to: { path: '^src/', pathNot: '^src/kernel/' },
    },
    {
      name: 'domain-is-pure',
      comment: 'src/domain imports only src/kernel (and itself)',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/(kernel|domain)/' },
    },
    {
      name: 'modules-through-index',
      comment: 'a module imports another module only through its index.ts',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/([^/]+)/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'routes-never-touch-sql',
      comment: 'routes call services; only repositories hold SQL',
      severity: 'error',
      from: { path: '^src/modules/[^/]+/routes\\.ts$' },
      to: { path: '(repository|db/pool|db/tenant-scope)\\.ts$' },
    },
    {
      name: 'adapters-never-import-services',
      severity: 'error',
      from: { path: '^src/adapters/' },
      to: { path: '^src/(modules|http|jobs)/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'infrastructure-does-not-import-modules',
      comment: 'db, http and jobs are below the modules; only main.ts and cli.ts wire modules in',
      severity: 'error',
      from: { path: '^src/(db|http|jobs|config)/' },
      to: { path: '^src/modules/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
