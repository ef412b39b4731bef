// The test-clocks module assembled (src/module.ts): sandbox test clocks and the job that advances them.
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { Module } from '../../module.js';
import { ADVANCE_TASK, createAdvanceRunner, type ClockDrivenWork } from './advance.js';
import { testClockRoutes } from './routes.js';
import { createTestClocksService, type TestClocksService } from './service.js';

/** `work`: subscriptions' and invoices' clock-driven services for one test clock (their `atTestClock`). */
export function createTestClocksModule(deps: { pool: Pool; clock: Clock; work: ClockDrivenWork }): Module<TestClocksService> {
  const service = createTestClocksService(deps);
  const runner = createAdvanceRunner(deps);
  return {
    routes: testClockRoutes(service),
    tasks: {
      [ADVANCE_TASK]: async (payload) => {
        await runner.advance(String(payload.tenant_id), String(payload.test_clock_id));
      },
    },
    api: service,
  };
}
