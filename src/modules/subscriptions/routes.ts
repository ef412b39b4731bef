import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, errorResponses, listResponse, orderByQuery, PageQuery } from '../../http/schemas.js';
import { SUBSCRIPTION_STATUSES } from '../../domain/index.js';
import type { SubscriptionsService } from './service.js';
import {
  AddOnRequest,
  CancelSubscriptionRequest,
  ChangePlanRequest,
  detailsToWire,
  Subscription,
  SubscriptionCreateRequest,
  SubscriptionDetails,
  subscriptionToWire,
  SubscriptionUpdateRequest,
} from './schemas.js';
import * as ex from './examples.js';
import { customPropertyFilterQuery, FILTER_HELP } from '../custom-properties/index.js';

const SubscriptionIdParams = Type.Object({ subscription_id: Type.String({ description: 'Subscription ID', examples: [ex.SUBSCRIPTION_ID] }) });
const ORDER_COLUMNS = ['customer_name', 'plan_name', 'mrr', 'billing_start_date', 'end_date', 'status', 'created_at'];

/** Said by every operation that changes the subscription's fees. */
const CHANGE_RULES =
  'Nothing is edited in place: the fee rows in force are closed (`effective_to`, exclusive) and new rows open (`effective_from`), so invoicing ' +
  'credits the unused days of the old fees and charges the new ones by day. A change that would apply on or after the cancellation or end date, ' +
  'or on a CANCELLED or COMPLETED subscription, is a 409. Answers the subscription details; `mrr` follows the fees in force today.';
const DETAILS_DESCRIPTION = 'The subscription with its fee rows (`components`, `add_ons`), applied coupons and its own entitlement values';

export function subscriptionRoutes(service: SubscriptionsService) {
  return (app: App) => {
    const tags = ['Subscriptions'];

    app.get('/api/v1/subscriptions', {
      schema: {
        tags,
        operationId: 'list_subscriptions',
        summary: 'List subscriptions',
        description:
          'The tenant\'s subscriptions, newest first unless `order_by` says otherwise (`mrr_cents` is accepted for `mrr`). `customer_id` takes an id or an alias; ' +
          'an unknown customer lists nothing. `statuses` may be repeated and matches the status shown: PAST_DUE lists running subscriptions with an overdue invoice ' +
          '(ACTIVE and TRIAL_ACTIVE then leave them out); a value outside the status list, a bad `order_by` or paging value is a 400. ' +
          'Statuses move with the clock (start, trial end, cancellation, end date) and are brought up to date before the list is read. ' +
          `${FILTER_HELP} Paged with \`page\` (0-based) and \`per_page\` (1-100, default 10).`,
        querystring: Type.Object({
          customer_id: Type.Optional(Type.String({ description: 'Filter by customer ID or alias' })),
          plan_id: Type.Optional(Type.String()),
          statuses: Type.Optional(Type.Array(Type.Enum([...SUBSCRIPTION_STATUSES, 'PAST_DUE']))),
          order_by: orderByQuery(ORDER_COLUMNS, 'created_at.desc'),
          ...PageQuery,
        }, customPropertyFilterQuery),
        response: { 200: documented(listResponse(Subscription), 'One page of subscriptions (without their fees)', ex.subscriptionListExample), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const tenantId = authOf(request).tenantId;
      const page = await service.listSubscriptions(tenantId, request.query);
      const todayOf = await service.todayOf(tenantId, page.data);
      return { data: page.data.map((s) => subscriptionToWire(s, todayOf(s))), pagination_meta: page.pagination_meta };
    });

    app.post('/api/v1/subscriptions', {
      schema: {
        tags,
        operationId: 'create_subscription',
        summary: 'Create a subscription',
        description:
          'Subscribes a customer (id or alias) to a published plan version: `plan_version_id`, or `plan_id` with an optional `version` (default the published one). ' +
          'Refused with a 400 naming the field: an unknown or archived customer, a draft version or archived plan, a plan priced in another currency than the customer\'s, ' +
          '`billing_start_date` before `start_date` or inside a free trial, `end_date` not after `start_date`, a missing choice (`billing_period` of a component priced in several terms, ' +
          '`committed_capacity` among several thresholds), a slot count outside the component\'s min/max, an add-on the version does not offer, a coupon that cannot be used ' +
          '(disabled, expired, redeemed out, other currency or plan, already used by this customer), `skip_past_invoices` without a past `start_date`, and any ' +
          '`activation_condition` but ON_START (use a checkout session to activate on payment). The plan\'s fees are copied onto the subscription: later catalog edits never change them. ' +
          '`billing_start_date` defaults to `start_date` (or the end of a free trial), the anchor to the plan version\'s period start day, else the billing start\'s day. ' +
          'Coupons are redeemed in the same transaction. The status follows the dates: PENDING_ACTIVATION before `start_date`, TRIAL_ACTIVE during a trial, then ACTIVE. ' +
          'Event `subscription.created`; one created before its start date moves on by the clock (`subscription.activated` or `subscription.trial_started`). ' +
          'Send an `Idempotency-Key` to make a retry safe: the same key and body answer the first result instead of creating a second subscription.',
        body: documented(SubscriptionCreateRequest, 'The customer, the plan and the dates; every choice and override of the plan\'s components', ex.subscriptionCreateExample),
        response: { 201: documented(SubscriptionDetails, DETAILS_DESCRIPTION, ex.subscriptionDetailsExample), ...errorResponses([400, 401, 409]) },
      },
    }, async (request, reply) => reply.status(201).send(detailsToWire(await service.createSubscription(authOf(request).tenantId, request.body))));

    app.get('/api/v1/subscriptions/:subscription_id', {
      schema: {
        tags,
        operationId: 'subscription_details',
        summary: 'Get a subscription',
        description:
          'One subscription with every fee row (past, current and scheduled, each with `effective_from`/`effective_to`), add-ons, applied coupons (as frozen when applied), ' +
          'its own entitlement values, the current period and `next_invoice_date`. The status is brought up to date with the clock first. Another tenant\'s subscription is a 404.',
        params: SubscriptionIdParams,
        response: { 200: documented(SubscriptionDetails, DETAILS_DESCRIPTION, ex.subscriptionDetailsExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => detailsToWire(await service.getSubscription(authOf(request).tenantId, request.params.subscription_id)));

    app.patch('/api/v1/subscriptions/:subscription_id', {
      schema: {
        tags,
        operationId: 'update_subscription',
        summary: 'Update invoicing settings of a subscription',
        description:
          'Changes only how invoices are issued and paid: `net_terms`, `invoice_memo`, `purchase_order`, `auto_advance_invoices`, `charge_automatically`, `payment_methods_config`, ' +
          '`usage_thresholds` (replaced whole; `[]` or `null` removes them; checked as on plan versions, in the subscription\'s currency). ' +
          'Fields left out keep their value; `null` clears a memo, purchase order or payment methods (and leaves the others unchanged). Any other field is a 400; ' +
          'a CANCELLED or COMPLETED subscription is a 409. Money-affecting changes have their own operations (change-plan, slots, add-ons). Event `subscription.updated`.',
        params: SubscriptionIdParams,
        body: documented(SubscriptionUpdateRequest, 'The invoicing settings to change', ex.subscriptionUpdateExample),
        response: {
          200: documented(Type.Object({ subscription: SubscriptionDetails }), 'The updated subscription', { subscription: ex.subscriptionUpdatedExample }),
          ...errorResponses([400, 401, 404, 409]),
        },
      },
    }, async (request) => ({ subscription: detailsToWire(await service.updateSubscription(authOf(request).tenantId, request.params.subscription_id, request.body)) }));

    app.post('/api/v1/subscriptions/:subscription_id/cancel', {
      schema: {
        tags,
        operationId: 'cancel_subscription',
        summary: 'Cancel a subscription',
        description:
          'Schedules the end of service: on `effective_date` (exclusive; today means now), or without it at the end of the current billing period; never later than `end_date`. ' +
          'A date in the past or not `YYYY-MM-DD` is a 400; a subscription already CANCELLED or COMPLETED, or already scheduled to cancel, is a 409. ' +
          'A plan change scheduled on or after the cancellation date is dropped. The status becomes CANCELLED when the clock reaches the date ' +
          '(events `subscription.cancellation_scheduled` now, `subscription.cancelled` then); the final invoice bills arrears and credits unused advance fees.',
        params: SubscriptionIdParams,
        body: documented(CancelSubscriptionRequest, 'When and why', { reason: 'Moving to the annual contract' }),
        response: {
          200: documented(Type.Object({ subscription: Subscription }), 'The subscription with `cancel_effective_date` set', { subscription: ex.subscriptionCancelledExample }),
          ...errorResponses([400, 401, 404, 409]),
        },
      },
    }, async (request) => {
      const tenantId = authOf(request).tenantId;
      const sub = await service.cancelSubscription(tenantId, request.params.subscription_id, request.body);
      return { subscription: subscriptionToWire(sub, (await service.todayOf(tenantId, [sub]))(sub)) };
    });
    // Changes after creation (ours; the reference has none of these operations).
    const AddOnParams = Type.Object({
      subscription_id: Type.String({ description: 'Subscription ID', examples: [ex.SUBSCRIPTION_ID] }),
      subscription_add_on_id: Type.String({ description: 'The id of the add-on row on the subscription (add_ons[].id)', examples: [ex.SUBSCRIPTION_ADD_ON_ID] }),
    });
    const errors = errorResponses([400, 401, 404, 409]);

    app.post('/api/v1/subscriptions/:subscription_id/change-plan', {
      schema: {
        tags,
        operationId: 'change_subscription_plan',
        summary: 'Move a subscription to another plan',
        description:
          'Moves to another published plan version in the same currency (`plan_version_id`, or `plan_id` with optional `version`), with the same `price_components` choices as creation. ' +
          'IMMEDIATE (default): from today, the invoice credits the unused part of the old fees and charges the new ones by day. ' +
          'END_OF_PERIOD: the new rows are written now, dated at the current period end, and `scheduled_plan_change` shows it; the plan fields switch when the date arrives. ' +
          'Add-ons the new version does not offer end on the change date. Refused: the same version, another currency, a draft or archived plan (400); ' +
          'a change already scheduled (one at a time, 409). Events `subscription.plan_changed` or `subscription.plan_change_scheduled`. ' + CHANGE_RULES,
        params: SubscriptionIdParams,
        body: documented(ChangePlanRequest, 'The new plan and when the change applies', ex.changePlanExample),
        response: { 200: documented(SubscriptionDetails, 'The subscription, with the new plan in force or scheduled', ex.planChangeScheduledExample), ...errors },
      },
    }, async (request) => detailsToWire(await service.changePlan(authOf(request).tenantId, request.params.subscription_id, request.body)));

    app.post('/api/v1/subscriptions/:subscription_id/slots', {
      schema: {
        tags,
        operationId: 'change_subscription_slots',
        summary: 'Change the slot count of a subscription',
        description:
          'Sets the number of slots (seats...) of one SLOT component (`price_component_id` of the plan). More slots apply today (prorated by invoicing: an ADJUSTMENT invoice ' +
          'charges the rest of the period); fewer slots apply at the end of the current period. The component\'s min/max apply; the current count, or a component that is not ' +
          'a slot component of the subscription, is a 400. Event `subscription.slots_changed`. ' + CHANGE_RULES,
        params: SubscriptionIdParams,
        body: documented(
          Type.Object({ price_component_id: Type.String(), slots: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
          'The slot component and its new count',
          { price_component_id: ex.SEATS_COMPONENT_ID, slots: 5 },
        ),
        response: { 200: documented(SubscriptionDetails, 'The subscription with the new slot row', ex.slotsChangedExample), ...errors },
      },
    }, async (request) => detailsToWire(await service.changeSlots(authOf(request).tenantId, request.params.subscription_id, request.body)));

    app.post('/api/v1/subscriptions/:subscription_id/add-ons', {
      schema: {
        tags,
        operationId: 'add_subscription_add_on',
        summary: 'Add an add-on to a subscription',
        description:
          'Adds an add-on offered by the subscription\'s plan version, from today (prorated by invoicing), `quantity` default 1 and at most the add-on\'s max instances. ' +
          'An add-on the version does not offer, or priced in another currency, is a 400; one already on the subscription is a 409 (change its quantity instead). ' +
          'Event `subscription.add_on_added`. ' + CHANGE_RULES,
        params: SubscriptionIdParams,
        body: documented(AddOnRequest, 'The add-on and how many', { add_on_id: ex.ADD_ON_ID, quantity: 2 }),
        response: { 200: documented(SubscriptionDetails, 'The subscription with the add-on row', ex.addOnAddedExample), ...errors },
      },
    }, async (request) => detailsToWire(await service.addAddOn(authOf(request).tenantId, request.params.subscription_id, request.body)));

    app.patch('/api/v1/subscriptions/:subscription_id/add-ons/:subscription_add_on_id', {
      schema: {
        tags,
        operationId: 'update_subscription_add_on',
        summary: 'Change the quantity of a subscription add-on',
        description:
          'A higher quantity applies today; a lower one at the end of the current period (or today with `immediately: true`). The same quantity, or more than the add-on\'s ' +
          'max instances, is a 400; an unknown add-on row is a 404; a row that already ends is a 409. Event `subscription.add_on_changed`. ' + CHANGE_RULES,
        params: AddOnParams,
        body: documented(
          Type.Object({ quantity: Type.Integer({ minimum: 1 }), immediately: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
          'The new quantity',
          { quantity: 1 },
        ),
        response: { 200: documented(SubscriptionDetails, 'The subscription with the add-on row closed and the new one opened', ex.addOnChangedExample), ...errors },
      },
    }, async (request) => detailsToWire(await service.changeAddOn(authOf(request).tenantId, request.params.subscription_id, request.params.subscription_add_on_id, request.body)));

    app.delete('/api/v1/subscriptions/:subscription_id/add-ons/:subscription_add_on_id', {
      schema: {
        tags,
        operationId: 'remove_subscription_add_on',
        summary: 'Remove an add-on from a subscription',
        description:
          'Ends the add-on row at the end of the current period, or today with `immediately=true` (invoicing credits the unused days). An unknown add-on row is a 404; ' +
          'a row that already ends is a 409. Event `subscription.add_on_removed`. ' + CHANGE_RULES,
        params: AddOnParams,
        querystring: Type.Object({ immediately: Type.Optional(Type.Boolean()) }),
        response: { 200: documented(SubscriptionDetails, 'The subscription with the add-on row ending', ex.addOnRemovedExample), ...errors },
      },
    }, async (request) => detailsToWire(await service.changeAddOn(authOf(request).tenantId, request.params.subscription_id, request.params.subscription_add_on_id, { quantity: 0, immediately: request.query.immediately })));
  };
}
