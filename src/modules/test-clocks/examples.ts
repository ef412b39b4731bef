// Examples of the OpenAPI document: a clock created at 2026-01-01 and advanced one month.
import type { Static } from 'typebox';
import type { AdvanceTestClockRequest, CreateTestClockRequest, DeletedTestClock, TestClock } from './schemas.js';

export const TEST_CLOCK_ID = 'clock_01KKRNW4G0AXNW3GT1SQ0DQK2M';

export const createExample: Static<typeof CreateTestClockRequest> = { frozen_time: '2026-01-01T00:00:00Z', name: 'Annual plan with trial' };

export const readyExample: Static<typeof TestClock> = {
  id: TEST_CLOCK_ID,
  name: 'Annual plan with trial',
  frozen_time: '2026-01-01T00:00:00.000Z',
  status: 'READY',
  target_frozen_time: null,
  created_at: '2026-03-15T09:12:40.118Z',
  updated_at: '2026-03-15T09:12:40.118Z',
};

export const advanceExample: Static<typeof AdvanceTestClockRequest> = { frozen_time: '2026-02-01T00:00:00Z' };

export const advancingExample: Static<typeof TestClock> = {
  ...readyExample,
  status: 'ADVANCING',
  target_frozen_time: '2026-02-01T00:00:00.000Z',
  updated_at: '2026-03-15T09:13:02.550Z',
};

export const advancedExample: Static<typeof TestClock> = { ...readyExample, frozen_time: '2026-02-01T00:00:00.000Z', updated_at: '2026-03-15T09:13:03.904Z' };

export const deletedExample: Static<typeof DeletedTestClock> = {
  id: TEST_CLOCK_ID,
  deleted: true,
  deleted_objects: { customers: 1, subscriptions: 1, invoices: 2, credit_notes: 0 },
};
