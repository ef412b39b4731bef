import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, ErrorBody, errorResponses, examplePage, listResponse, orderByQuery, PageQuery } from '../../http/schemas.js';
import { createCouponExample, fixedCouponExample, percentageCouponExample } from './examples.js';
import { COUPON_FILTERS } from './rules.js';
import type { CouponsService } from './service.js';
import { Coupon, couponToWire, CreateCouponRequest, UpdateCouponRequest } from './schemas.js';

const CouponIdParams = Type.Object({ coupon_id: Type.String({ description: 'Coupon ID (`cou_...`)' }) });

const DISCOUNT_RULES =
  '`discount` is `{type: PERCENTAGE, percentage}` with a whole-percent decimal string above 0 and at most 100, up to 4 decimals ("10" = 10 %), ' +
  'or `{type: FIXED, currency, amount}` with an ISO 4217 currency and an amount above 0 in major units, with at most the currency\'s decimals (returned at that precision: "10" becomes "10.00").';
const APPLIED = 'Subscriptions that already carry the coupon keep it as it was when applied.';

/** What each flag move does; repeating the current state is a no-op without an event. */
const MOVES = {
  archive: {
    summary: 'Archive a coupon',
    description: `Archives the coupon: it can no longer be applied to subscriptions, and lists show it only with \`filter=ARCHIVED\` or \`ALL\`. ${APPLIED} Emits \`coupon.archived\`.`,
  },
  unarchive: { summary: 'Unarchive a coupon', description: `Makes an archived coupon applicable again (unless it is disabled, expired or exhausted). Emits \`coupon.updated\`.` },
  disable: {
    summary: 'Disable a coupon',
    description: `Stops the coupon from being applied to new subscriptions (it lists as INACTIVE) without archiving it. ${APPLIED} Emits \`coupon.updated\`.`,
  },
  enable: { summary: 'Enable a coupon', description: 'Lets a disabled coupon be applied again. Emits `coupon.updated`.' },
};

export function couponRoutes(service: CouponsService) {
  return (app: App) => {
    const tags = ['Coupons'];
    app.get('/api/v1/coupons', {
      schema: {
        tags,
        operationId: 'list_coupons',
        summary: 'List coupons',
        description:
          'Lists the tenant\'s coupons, newest first unless `order_by` says otherwise (`expires_at` puts coupons without expiry last). `filter`: `ALL` (the default), ' +
          '`ACTIVE` (applicable now), `INACTIVE` (disabled, expired or at its redemption limit, not archived) or `ARCHIVED`. `search` matches part of the code or ' +
          'of the description, ignoring case. Paged: `page` from 0, `per_page` 1 to 100 (default 10).',
        querystring: Type.Object({
          search: Type.Optional(Type.String({ description: 'Search by code or description' })),
          filter: Type.Optional(Type.Enum(COUPON_FILTERS, { description: 'ACTIVE, INACTIVE (disabled, expired or exhausted), ARCHIVED; default ALL' })),
          order_by: orderByQuery(['code', 'created_at', 'expires_at'], 'created_at.desc'),
          ...PageQuery,
        }),
        response: { 200: documented(listResponse(Coupon), 'A page of coupons.', examplePage([fixedCouponExample, percentageCouponExample])), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.list(authOf(request).tenantId, request.query);
      return { data: page.data.map(couponToWire), pagination_meta: page.pagination_meta };
    });

    app.post('/api/v1/coupons', {
      schema: {
        tags,
        operationId: 'create_coupon',
        summary: 'Create a coupon',
        description:
          'Creates a coupon customers can redeem on subscriptions. `code` is 1 to 64 letters, digits, `-` or `_`, starting with a letter or digit, and unique in the tenant ' +
          `ignoring case (a taken code is a 409). ${DISCOUNT_RULES} \`expires_at\`, if given, must be in the future. \`redemption_limit\` caps how many subscriptions may redeem it ` +
          'and `recurring_value` how many invoices of a subscription it applies to (positive integers; null or absent = no limit). `reusable` (default false) lets one customer ' +
          'redeem it on several subscriptions. `plan_ids` restricts it to those plans of the tenant (empty = any plan). Code, expiry, limits and `reusable` are fixed at creation. ' +
          'Emits `coupon.created`.',
        body: documented(CreateCouponRequest, 'The coupon to create.', createCouponExample),
        response: {
          201: documented(Coupon, 'The new coupon.', { ...percentageCouponExample, redemption_count: 0, last_redemption_at: null, created_at: '2026-03-15T12:00:00.000Z' }),
          ...errorResponses([400, 401]),
          409: documented(ErrorBody, 'The code is taken (ignoring case), or the Idempotency-Key was used with another request.', {
            code: 'CONFLICT',
            message: "code 'welcome20' is already used by another coupon (codes ignore case)",
          }),
        },
      },
    }, async (request, reply) => reply.status(201).send(couponToWire(await service.create(authOf(request).tenantId, request.body))));

    app.get('/api/v1/coupons/:coupon_id', {
      schema: {
        tags,
        operationId: 'get_coupon',
        summary: 'Get a coupon',
        description: 'Returns one coupon of the tenant by id, whatever its state, with its redemption count.',
        params: CouponIdParams,
        response: { 200: documented(Coupon, 'The coupon.', percentageCouponExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => couponToWire(await service.get(authOf(request).tenantId, request.params.coupon_id)));

    app.patch('/api/v1/coupons/:coupon_id', {
      schema: {
        tags,
        operationId: 'update_coupon',
        summary: 'Update a coupon',
        description:
          'Changes description, discount and plan_ids; the other terms are fixed at creation. Giving `code`, `expires_at`, `redemption_limit`, `recurring_value` or `reusable` ' +
          `(or an unknown field) is a 400. \`description: null\` clears it; a null \`discount\` or \`plan_ids\` changes nothing. ${DISCOUNT_RULES} Once redeemed, the discount may not ` +
          `change type or currency (400). \`plan_ids\` replaces the list. ${APPLIED} Emits \`coupon.updated\`.`,
        params: CouponIdParams,
        body: documented(UpdateCouponRequest, 'The fields to change.', { discount: { type: 'PERCENTAGE', percentage: '25' } }),
        response: { 200: documented(Coupon, 'The coupon as changed.', { ...percentageCouponExample, discount: { type: 'PERCENTAGE', percentage: '25' } }), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => couponToWire(await service.update(authOf(request).tenantId, request.params.coupon_id, request.body as Record<string, unknown>)));

    for (const action of ['archive', 'unarchive', 'disable', 'enable'] as const) {
      app.post(`/api/v1/coupons/:coupon_id/${action}`, {
        schema: {
          tags,
          operationId: `${action}_coupon`,
          summary: MOVES[action].summary,
          description: `${MOVES[action].description} Repeating the current state changes nothing and emits no event.`,
          params: CouponIdParams,
          response: { 204: documented(Type.Null(), 'Done (or already so); no body.'), ...errorResponses([401, 404]) },
        },
      }, async (request, reply) => {
        await service[action](authOf(request).tenantId, request.params.coupon_id);
        return reply.status(204).send(null);
      });
    }
  };
}
