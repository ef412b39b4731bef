// Requests about a customer on a test clock run on that clock (docs/test-clocks.md): creating a
// subscription for it, or any operation on one of its subscriptions, goes to a service whose
// clock is stopped at the test clock's frozen time and whose clock-driven moves touch only that
// clock's subscriptions. The code path is the service's own; only its clock and population differ.
import { frozenClock, type Clock } from '../../kernel/clock.js';
import { findCustomer } from '../customers/index.js';
import * as repo from './repository.js';
import { createSubscriptionsService, type SubscriptionsDeps, type SubscriptionsService } from './service.js';

export type RoutedSubscriptionsService = SubscriptionsService & {
  /** The service at `clock`, driving the subscriptions of this test clock only (the clock's advance runs it step by step). */
  atTestClock(clock: Clock, testClockId: string): SubscriptionsService;
};

export function routedByTestClock(deps: SubscriptionsDeps, base: SubscriptionsService): RoutedSubscriptionsService {
  const { pool } = deps;
  const atTestClock = (clock: Clock, testClockId: string) => createSubscriptionsService({ ...deps, clock, testClockId });
  const on = async (tenantId: string, testClockId: string | null | undefined): Promise<SubscriptionsService> => {
    if (!testClockId || !deps.testClockTime) return base;
    const at = await deps.testClockTime(pool, tenantId, testClockId);
    return at ? atTestClock(frozenClock(at), testClockId) : base;
  };
  // an unknown subscription or customer goes to the base service, which answers the usual 404/400
  const ofSubscription = async (tenantId: string, id: string) => on(tenantId, (await repo.findSubscription(pool, tenantId, id))?.test_clock_id);
  const ofCustomer = async (tenantId: string, idOrAlias: string) => on(tenantId, (await findCustomer(pool, tenantId, idOrAlias))?.test_clock_id);
  type S = SubscriptionsService;
  return {
    ...base,
    atTestClock,
    createSubscription: async (tenantId, input) => (await ofCustomer(tenantId, input.customer_id_or_alias)).createSubscription(tenantId, input),
    getSubscription: async (tenantId, id) => (await ofSubscription(tenantId, id)).getSubscription(tenantId, id),
    cancelSubscription: async (tenantId, id, input) => (await ofSubscription(tenantId, id)).cancelSubscription(tenantId, id, input),
    updateSubscription: async (tenantId, id, input) => (await ofSubscription(tenantId, id)).updateSubscription(tenantId, id, input),
    changePlan: async (tenantId, id, input) => (await ofSubscription(tenantId, id)).changePlan(tenantId, id, input),
    previewCreate: async (tenantId, input) => (await ofCustomer(tenantId, input.customer_id_or_alias)).previewCreate(tenantId, input),
    previewChangePlan: async (tenantId, id, input) => (await ofSubscription(tenantId, id)).previewChangePlan(tenantId, id, input),
    changeSlots: async (tenantId, id, input) => (await ofSubscription(tenantId, id)).changeSlots(tenantId, id, input),
    addAddOn: async (tenantId, id, input) => (await ofSubscription(tenantId, id)).addAddOn(tenantId, id, input),
    changeAddOn: async (tenantId, id, rowId, input) => (await ofSubscription(tenantId, id)).changeAddOn(tenantId, id, rowId, input),
    usageScope: async (tenantId, id) => (await ofSubscription(tenantId, id)).usageScope(tenantId, id),
  } satisfies S & { atTestClock: unknown };
}
