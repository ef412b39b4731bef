import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, ErrorBody, errorResponses, examplePage, listResponse, MessageBody, orderByQuery, PageQuery } from '../../http/schemas.js';
import { createPlanExample, planExample, replacedPlanExample, replacePlanExample, resolvedEntitlementExamples, versionExamples } from './examples.js';
import type { PlansService } from './plans-service.js';
import { customPropertyFilterQuery, FILTER_HELP } from '../custom-properties/index.js';
import { CreatePlanRequest, PatchPlanRequest, Plan, PlanVersionSummary, planToWire, ReplacePlanRequest, ResolvedEntitlementList, versionToWire } from './schemas.js';

const PlanIdParams = Type.Object({ plan_id: Type.String({ description: 'Plan ID (`plan_...`)' }) });
const tags = ['Plans'];

/** What a version body must hold; create and replace check it the same way (plan-input.ts, fees.ts). */
const VERSION_RULES =
  '`currency` is an ISO 4217 code. Each component names a product of the tenant that is not archived; its `fee.type` defaults to the product\'s fee type and must equal it, ' +
  'and the fee must agree with the product (metric, usage model, billing type). Prices are decimal strings such as "49.00" (at most 12 digits on each side of the point; a JSON number is a 400). ' +
  'Fees: RATE `{rates: [{term, price}]}` (term MONTHLY, the default, QUARTERLY, SEMIANNUAL or ANNUAL, each at most once); SLOT adds `minimum_count` and `quota` (>= minimum_count); ' +
  'CAPACITY `{thresholds: [{included_amount, price, per_unit_overage}], cadence}`; USAGE `{pricing, cadence}` with PER_UNIT `{rate}`, TIERED or VOLUME `{tiers: [{first_unit, rate, flat_fee?, flat_cap?}], block_size?}` ' +
  '(first_unit starts at 0 and increases), PACKAGE `{block_size, rate, rounding: UP|DOWN}` or MATRIX `{rates}`; EXTRA_RECURRING `{unit_price, quantity, billing_type, cadence}`; ONE_TIME `{unit_price, quantity}`. ' +
  'A FREE plan may hold only zero prices. `billing`: `net_terms` 0 to 365 days (default 0), `billing_cycles` 1 to 1000 (null = no end), `period_start_day` 1 to 31. ' +
  '`trial`: `duration_days` 0 to 730, `is_free`, and `trialing_plan_id` (another plan of the tenant whose entitlements apply during the trial). ' +
  '`minimum_commitment.amount` is the floor of each period\'s invoice, with at most the currency\'s decimals. ' +
  '`usage_thresholds` (spend thresholds, progressive billing): up to 20 `{amount, recurring?, threshold_display_name?}`, amounts above zero with at most the currency\'s decimals, ' +
  'fixed amounts distinct, at most one `recurring` (a step repeated after the highest fixed amount); subscriptions copy them when created. `add_ons` attach active add-ons of the tenant, each once; ' +
  '`entitlements` grant features of the tenant that are not archived, each once, with a value of the feature\'s type.';

const VERSION_QUERY = '"draft", a version number (1 to 2147483647), or omitted for the published version (the draft when none is published)';

export function planRoutes(service: PlansService) {
  return (app: App) => {
    app.get('/api/v1/plans', {
      schema: {
        tags,
        operationId: 'list_plans',
        summary: 'List plans',
        description:
          'Lists the tenant\'s plans, newest first unless `order_by` says otherwise, each shown at its published version (at its draft when it was never published). ' +
          'Filters: `product_family_id` (a family id), `search` (part of the name, case-insensitive), `status` and `plan_type` (repeat them for several values). ' +
          'Plans are DRAFT until a version is published, then ACTIVE; INACTIVE or ARCHIVED plans (set at creation, or by archiving) are not offered for new subscriptions. ' +
          `${FILTER_HELP} Paged: \`page\` from 0, \`per_page\` 1 to 100 (default 10).`,
        querystring: Type.Object({
          product_family_id: Type.Optional(Type.String({ description: 'Only plans of this family (its id)' })),
          search: Type.Optional(Type.String({ description: 'Search by plan name' })),
          status: Type.Optional(Type.Array(Type.Enum(['DRAFT', 'ACTIVE', 'INACTIVE', 'ARCHIVED']), { description: 'Filter by plan status (can be repeated)' })),
          plan_type: Type.Optional(Type.Array(Type.Enum(['STANDARD', 'FREE', 'CUSTOM']), { description: 'Filter by plan type (can be repeated)' })),
          order_by: orderByQuery(['name', 'status', 'plan_type', 'created_at'], 'created_at.desc'),
          ...PageQuery,
        }, customPropertyFilterQuery),
        response: { 200: documented(listResponse(Plan), 'A page of plans.', examplePage([planExample])), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.listPlans(authOf(request).tenantId, request.query);
      return { data: page.data.map(planToWire), pagination_meta: page.pagination_meta };
    });

    app.post('/api/v1/plans', {
      schema: {
        tags,
        operationId: 'create_plan',
        summary: 'Create a plan',
        description:
          'Creates a plan with version 1. `status` ACTIVE publishes it immediately; DRAFT (the default) stages it for review. INACTIVE and ARCHIVED also publish version 1, then put the plan in that state: ' +
          'it is not offered for new subscriptions or plan changes (a PUT that publishes, or archive then unarchive, makes it ACTIVE). ' +
          '`name` is 1 to 255 characters; `product_family_id` is the id or alias of a family of the tenant; `plan_type` is STANDARD (the default), FREE or CUSTOM. ' +
          `${VERSION_RULES} Emits \`plan.created\`, then \`plan.published\` when published, then \`plan.archived\` for ARCHIVED.`,
        body: documented(CreatePlanRequest, 'The plan and its first version.', createPlanExample),
        response: { 201: documented(Plan, 'The new plan, at version 1.', { ...planExample, add_ons: [] }), ...errorResponses([400, 401, 409]) },
      },
    }, async (request, reply) => reply.status(201).send(planToWire(await service.createPlan(authOf(request).tenantId, request.body))));

    app.get('/api/v1/plans/:plan_id', {
      schema: {
        tags,
        operationId: 'get_plan_details',
        summary: 'Get a plan',
        description:
          'Returns the plan at one of its versions: the published version by default (the draft when none was published), `?version=draft` for the pending draft ' +
          '(404 when there is none), `?version=2` for version 2 (404 when it does not exist). Any other `version` is a 400. ' +
          '`available_parameters` lists what a subscription chooses: the billing period of components priced in several terms, the capacity of components with several thresholds, ' +
          'and the slot components whose initial count it sets.',
        params: PlanIdParams,
        querystring: Type.Object({ version: Type.Optional(Type.String({ description: VERSION_QUERY })) }),
        response: { 200: documented(Plan, 'The plan at the version asked for.', planExample), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => planToWire(await service.getPlan(authOf(request).tenantId, request.params.plan_id, request.query.version)));

    app.put('/api/v1/plans/:plan_id', {
      schema: {
        tags,
        operationId: 'replace_plan',
        summary: 'Replace a plan',
        description:
          'Replaces the plan configuration. A draft is changed in place; a published plan gets a new version (published unless `status` is DRAFT). ' +
          '`status` defaults to DRAFT for a plan never published and to ACTIVE otherwise; INACTIVE or ARCHIVED is a 400. A published version never changes: its subscriptions keep it. ' +
          'The body is the whole version: settings left out take their defaults, except `entitlements` and `add_ons`, which carry over from the version replaced when absent; ' +
          `\`description\` left out keeps the plan's. An archived plan is a 409: unarchive it first. ${VERSION_RULES} Emits \`plan.published\` when it publishes.`,
        params: PlanIdParams,
        body: documented(ReplacePlanRequest, 'The whole new version.', replacePlanExample),
        response: {
          200: documented(Plan, 'The plan at the version written (published, or the draft).', replacedPlanExample),
          ...errorResponses([400, 401, 404]),
          409: documented(ErrorBody, 'The plan is archived.', { code: 'CONFLICT', message: 'plan is archived; unarchive it before replacing it' }),
        },
      },
    }, async (request) => planToWire(await service.replacePlan(authOf(request).tenantId, request.params.plan_id, request.body)));

    app.patch('/api/v1/plans/:plan_id', {
      schema: {
        tags,
        operationId: 'patch_plan',
        summary: 'Update plan metadata',
        description:
          'Changes plan metadata (name, description, self_service_rank, custom_properties: it replaces the stored object, each value checked against its definition); prices and version settings change through PUT. These fields belong to the plan, not to a version, ' +
          'so no version is written. A null `name` keeps it (a blank one is a 400); null clears `description` and `self_service_rank`. Any other field is a 400. ' +
          'The answer shows the plan at its default version.',
        params: PlanIdParams,
        body: documented(PatchPlanRequest, 'The fields to change.', { self_service_rank: 2 }),
        response: { 200: documented(Plan, 'The plan with its new metadata.', { ...planExample, self_service_rank: 2 }), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => planToWire(await service.patchPlan(authOf(request).tenantId, request.params.plan_id, request.body)));

    app.post('/api/v1/plans/:plan_id/publish', {
      schema: {
        tags,
        operationId: 'publish_plan',
        summary: 'Publish the draft version',
        description:
          'Publishes the plan\'s draft version: it becomes the version new subscriptions get, and the plan becomes ACTIVE. Older published versions stay with their subscriptions. ' +
          'A plan without a draft, or an archived plan, is a 409. Emits `plan.published`.',
        params: PlanIdParams,
        response: {
          200: documented(Plan, 'The plan at the version just published.', { ...replacedPlanExample, is_draft: false }),
          ...errorResponses([401, 404]),
          409: documented(ErrorBody, 'The plan has no draft or is archived, or the Idempotency-Key was used with another request.', {
            code: 'CONFLICT',
            message: 'plan has no draft version to publish',
          }),
        },
      },
    }, async (request) => planToWire(await service.publishPlan(authOf(request).tenantId, request.params.plan_id)));

    app.post('/api/v1/plans/:plan_id/archive', {
      schema: {
        tags,
        operationId: 'archive_plan',
        summary: 'Archive a plan',
        description:
          'Archives the plan: new subscriptions and plan changes to it are refused (400), and it can be neither replaced nor published (409) until unarchived. ' +
          'Existing subscriptions keep running on their version. Archiving an archived plan changes nothing. Emits `plan.archived`.',
        params: PlanIdParams,
        response: { 204: documented(Type.Null(), 'Archived (or already archived); no body.'), ...errorResponses([401, 404]) },
      },
    }, async (request, reply) => {
      await service.archivePlan(authOf(request).tenantId, request.params.plan_id);
      return reply.status(204).send(null);
    });

    app.post('/api/v1/plans/:plan_id/unarchive', {
      // The spec answers this operation, success and errors, as {message} (shape B).
      config: { errorShape: 'message' },
      schema: {
        tags,
        operationId: 'unarchive_plan',
        summary: 'Unarchive a plan',
        description:
          'Brings an archived plan back: to ACTIVE when a version was ever published, else to DRAFT. A plan that is not archived is a 409. ' +
          'This operation answers `{message}`, on success and on error. No event is emitted.',
        params: PlanIdParams,
        response: {
          200: documented(MessageBody, 'The plan is unarchived; the message gives its status.', { message: 'plan unarchived; its status is ACTIVE' }),
          ...errorResponses([401, 404], MessageBody),
          409: documented(MessageBody, 'The plan is not archived.', { message: 'plan is not archived' }),
        },
      },
    }, async (request) => {
      const status = await service.unarchivePlan(authOf(request).tenantId, request.params.plan_id);
      return { message: `plan unarchived; its status is ${status}` };
    });

    app.get('/api/v1/plans/:plan_id/versions', {
      schema: {
        tags,
        operationId: 'list_plan_versions',
        summary: 'List plan versions',
        description:
          'Lists the versions of a plan, newest first, the draft included (`is_draft`, with a null `published_at`). Get a version\'s content with `GET /api/v1/plans/{plan_id}?version=N`. ' +
          'Paged: `page` from 0, `per_page` 1 to 100 (default 10).',
        params: PlanIdParams,
        querystring: Type.Object({ ...PageQuery }),
        response: { 200: documented(listResponse(PlanVersionSummary), 'A page of versions.', examplePage(versionExamples)), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => {
      const page = await service.listVersions(authOf(request).tenantId, request.params.plan_id, request.query);
      return { data: page.data.map(versionToWire), pagination_meta: page.pagination_meta };
    });

    app.get('/api/v1/plan-versions/:plan_version_id/entitlements', {
      schema: {
        tags: ['Plans', 'Entitlements'],
        operationId: 'list_plan_version_entitlements',
        summary: 'List plan version entitlements',
        description:
          'Lists the features a plan version grants, with each feature and its value (a metered value also names the feature\'s metric), in the order given. Not paged. ' +
          'This is what the version grants, not what a customer ends up with: see the customer and subscription entitlements for that.',
        params: Type.Object({ plan_version_id: Type.String({ description: 'Plan version ID (`plv_...`)' }) }),
        response: { 200: documented(ResolvedEntitlementList, 'The entitlements of the version.', { data: resolvedEntitlementExamples }), ...errorResponses([401, 404]) },
      },
    }, async (request) => ({ data: await service.versionEntitlements(authOf(request).tenantId, request.params.plan_version_id) }));
  };
}
