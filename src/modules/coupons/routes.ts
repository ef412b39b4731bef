import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { errorResponses, listResponse, orderByQuery, PageQuery } from '../../http/schemas.js';
import { COUPON_FILTERS } from './rules.js';
import type { CouponsService } from './service.js';
import { Coupon, couponToWire, CreateCouponRequest, UpdateCouponRequest } from './schemas.js';

const CouponIdParams = Type.Object({ coupon_id: Type.String({ description: 'Coupon ID' }) });

export function couponRoutes(service: CouponsService) {
  return (app: App) => {
    const tags = ['Coupons'];
    app.get('/api/v1/coupons', {
      schema: {
        tags,
        operationId: 'list_coupons',
        querystring: Type.Object({
          search: Type.Optional(Type.String({ description: 'Search by code or description' })),
          filter: Type.Optional(Type.Enum(COUPON_FILTERS, { description: 'ACTIVE, INACTIVE (disabled, expired or exhausted), ARCHIVED; default ALL' })),
          order_by: orderByQuery(['code', 'created_at', 'expires_at'], 'created_at.desc'),
          ...PageQuery,
        }),
        response: { 200: listResponse(Coupon), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.list(authOf(request).tenantId, request.query);
      return { data: page.data.map(couponToWire), pagination_meta: page.pagination_meta };
    });

    app.post('/api/v1/coupons', {
      schema: { tags, operationId: 'create_coupon', body: CreateCouponRequest, response: { 201: Coupon, ...errorResponses([400, 401, 409]) } },
    }, async (request, reply) => reply.status(201).send(couponToWire(await service.create(authOf(request).tenantId, request.body))));

    app.get('/api/v1/coupons/:coupon_id', {
      schema: { tags, operationId: 'get_coupon', params: CouponIdParams, response: { 200: Coupon, ...errorResponses([401, 404]) } },
    }, async (request) => couponToWire(await service.get(authOf(request).tenantId, request.params.coupon_id)));

    app.patch('/api/v1/coupons/:coupon_id', {
      schema: {
        tags,
        operationId: 'update_coupon',
        description: 'Changes description, discount and plan_ids; the other terms are fixed at creation.',
        params: CouponIdParams,
        body: UpdateCouponRequest,
        response: { 200: Coupon, ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => couponToWire(await service.update(authOf(request).tenantId, request.params.coupon_id, request.body as Record<string, unknown>)));

    for (const action of ['archive', 'unarchive', 'disable', 'enable'] as const) {
      app.post(`/api/v1/coupons/:coupon_id/${action}`, {
        schema: { tags, operationId: `${action}_coupon`, params: CouponIdParams, response: { 204: Type.Null(), ...errorResponses([401, 404]) } },
      }, async (request, reply) => {
        await service[action](authOf(request).tenantId, request.params.coupon_id);
        return reply.status(204).send(null);
      });
    }
  };
}
