// A customer created on a test clock runs, with everything of it, on that clock's frozen time
// (docs/test-clocks.md). Test clocks belong to the test-clocks module, last in the module order;
// the modules whose requests act on a customer's objects receive its reader from the composition
// root and pick the customer's clock with `clockOfCustomer`.
import { frozenClock, type Clock } from '../../kernel/clock.js';
import { badRequest } from '../../kernel/errors.js';
import type { Queryable } from '../../db/pool.js';
import { findTenantProfile } from '../accounts/index.js';

/** A test clock's frozen time, or undefined when the tenant has no clock with this id. */
export type TestClockTime = (db: Queryable, tenantId: string, testClockId: string) => Promise<Date | undefined>;

/** The clock a customer's objects run on: its test clock stopped at its frozen time, else the service clock. */
export async function clockOfCustomer(
  db: Queryable, tenantId: string, customer: { test_clock_id: string | null }, serviceClock: Clock, timeOf: TestClockTime | undefined,
): Promise<Clock> {
  if (customer.test_clock_id === null || !timeOf) return serviceClock;
  const at = await timeOf(db, tenantId, customer.test_clock_id);
  return at ? frozenClock(at) : serviceClock;
}

/**
 * The frozen time of the test clock a new customer goes on; a 400 naming `field` that says why
 * when there is none: production tenants have no test clocks, and a sandbox's must exist.
 */
export async function testClockForNewCustomer(db: Queryable, tenantId: string, testClockId: string, field: string, timeOf: TestClockTime | undefined): Promise<Date> {
  const at = timeOf ? await timeOf(db, tenantId, testClockId) : undefined;
  if (at) return at;
  const tenant = await findTenantProfile(db, tenantId);
  if (tenant?.environment === 'production') {
    throw badRequest(`${field}: production tenants have no test clocks; create customers on a test clock with a sandbox API key (sk_sandbox_...)`);
  }
  throw badRequest(`${field} '${testClockId}' is not a test clock of this tenant; create one with POST /api/v1/test-clocks, e.g. {"frozen_time": "2026-01-01T00:00:00Z"}`);
}
