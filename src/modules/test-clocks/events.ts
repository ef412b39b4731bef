import type { TestClockRow } from './repository.js';
import { testClockToWire } from './schemas.js';

/**
 * `data` of test_clock.* events: the clock as the API shows it, its id as `test_clock_id` (a
 * webhook body's `id` is the event's, as for every other resource).
 */
export function testClockEventData(row: TestClockRow): Record<string, unknown> {
  const { id, ...clock } = testClockToWire(row);
  return { test_clock_id: id, ...clock };
}
