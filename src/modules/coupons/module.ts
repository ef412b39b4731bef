// The coupons module assembled (src/module.ts): coupon definitions.
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { Module } from '../../module.js';
import { couponRoutes } from './routes.js';
import { createCouponsService, type CouponsService, type PlanExists } from './service.js';

/** `planExists` comes from plans, a later module: a coupon limited to plans names existing ones. */
export function createCouponsModule(deps: { pool: Pool; clock: Clock; planExists: PlanExists }): Module<CouponsService> {
  const service = createCouponsService(deps);
  return { routes: couponRoutes(service), api: service };
}
