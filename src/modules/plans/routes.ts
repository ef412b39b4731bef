import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { errorResponses, listResponse, MessageBody, orderByQuery, PageQuery } from '../../http/schemas.js';
import type { PlansService } from './plans-service.js';
import { CreatePlanRequest, PatchPlanRequest, Plan, PlanVersionSummary, planToWire, ReplacePlanRequest, ResolvedEntitlementList, versionToWire } from './schemas.js';

const PlanIdParams = Type.Object({ plan_id: Type.String({ description: 'Plan ID' }) });
const tags = ['Plans'];

export function planRoutes(service: PlansService) {
  return (app: App) => {
    app.get('/api/v1/plans', {
      schema: {
        tags,
        operationId: 'list_plans',
        querystring: Type.Object({
          product_family_id: Type.Optional(Type.String()),
          search: Type.Optional(Type.String({ description: 'Search by plan name' })),
          status: Type.Optional(Type.Array(Type.Enum(['DRAFT', 'ACTIVE', 'INACTIVE', 'ARCHIVED']), { description: 'Filter by plan status (can be repeated)' })),
          plan_type: Type.Optional(Type.Array(Type.Enum(['STANDARD', 'FREE', 'CUSTOM']), { description: 'Filter by plan type (can be repeated)' })),
          order_by: orderByQuery(['name', 'status', 'plan_type', 'created_at'], 'created_at.desc'),
          ...PageQuery,
        }),
        response: { 200: listResponse(Plan), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.listPlans(authOf(request).tenantId, request.query);
      return { data: page.data.map(planToWire), pagination_meta: page.pagination_meta };
    });

    app.post('/api/v1/plans', {
      schema: {
        tags,
        operationId: 'create_plan',
        description: 'Creates a plan with version 1. `status` ACTIVE publishes it immediately; DRAFT (the default) stages it for review.',
        body: CreatePlanRequest,
        response: { 201: Plan, ...errorResponses([400, 401, 409]) },
      },
    }, async (request, reply) => reply.status(201).send(planToWire(await service.createPlan(authOf(request).tenantId, request.body))));

    app.get('/api/v1/plans/:plan_id', {
      schema: {
        tags,
        operationId: 'get_plan_details',
        params: PlanIdParams,
        querystring: Type.Object({ version: Type.Optional(Type.String({ description: '"draft", a version number, or omitted for the published version (the draft when none is published)' })) }),
        response: { 200: Plan, ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => planToWire(await service.getPlan(authOf(request).tenantId, request.params.plan_id, request.query.version)));

    app.put('/api/v1/plans/:plan_id', {
      schema: {
        tags,
        operationId: 'replace_plan',
        description: 'Replaces the plan configuration. A draft is changed in place; a published plan gets a new version (published unless `status` is DRAFT).',
        params: PlanIdParams,
        body: ReplacePlanRequest,
        response: { 200: Plan, ...errorResponses([400, 401, 404, 409]) },
      },
    }, async (request) => planToWire(await service.replacePlan(authOf(request).tenantId, request.params.plan_id, request.body)));

    app.patch('/api/v1/plans/:plan_id', {
      schema: {
        tags,
        operationId: 'patch_plan',
        description: 'Changes plan metadata (name, description, self_service_rank); prices and version settings change through PUT.',
        params: PlanIdParams,
        body: PatchPlanRequest,
        response: { 200: Plan, ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => planToWire(await service.patchPlan(authOf(request).tenantId, request.params.plan_id, request.body)));

    app.post('/api/v1/plans/:plan_id/publish', {
      schema: { tags, operationId: 'publish_plan', params: PlanIdParams, response: { 200: Plan, ...errorResponses([401, 404, 409]) } },
    }, async (request) => planToWire(await service.publishPlan(authOf(request).tenantId, request.params.plan_id)));

    app.post('/api/v1/plans/:plan_id/archive', {
      schema: { tags, operationId: 'archive_plan', params: PlanIdParams, response: { 204: Type.Null(), ...errorResponses([401, 404]) } },
    }, async (request, reply) => {
      await service.archivePlan(authOf(request).tenantId, request.params.plan_id);
      return reply.status(204).send(null);
    });

    app.post('/api/v1/plans/:plan_id/unarchive', {
      // The spec answers this operation, success and errors, as {message} (shape B).
      config: { errorShape: 'message' },
      schema: { tags, operationId: 'unarchive_plan', params: PlanIdParams, response: { 200: MessageBody, ...errorResponses([401, 404, 409], MessageBody) } },
    }, async (request) => {
      const status = await service.unarchivePlan(authOf(request).tenantId, request.params.plan_id);
      return { message: `plan unarchived; its status is ${status}` };
    });

    app.get('/api/v1/plans/:plan_id/versions', {
      schema: {
        tags,
        operationId: 'list_plan_versions',
        params: PlanIdParams,
        querystring: Type.Object({ ...PageQuery }),
        response: { 200: listResponse(PlanVersionSummary), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => {
      const page = await service.listVersions(authOf(request).tenantId, request.params.plan_id, request.query);
      return { data: page.data.map(versionToWire), pagination_meta: page.pagination_meta };
    });

    app.get('/api/v1/plan-versions/:plan_version_id/entitlements', {
      schema: {
        tags: ['Plans', 'Entitlements'],
        operationId: 'list_plan_version_entitlements',
        params: Type.Object({ plan_version_id: Type.String({ description: 'Plan version ID' }) }),
        response: { 200: ResolvedEntitlementList, ...errorResponses([401, 404]) },
      },
    }, async (request) => ({ data: await service.versionEntitlements(authOf(request).tenantId, request.params.plan_version_id) }));
  };
}
