import { Type } from 'typebox';
import { iso, isoOrNull, Nullable, NAME_MAX_CHARS } from '../../http/schemas.js';
import { TEST_CLOCK_STATUSES, type TestClockRow } from './repository.js';

const DateTime = (description: string) => Type.String({ format: 'date-time', description });

export const TestClock = Type.Object({
  id: Type.String({ description: 'Test clock ID (clock_...)' }),
  name: Nullable(Type.String({ description: 'The name given at creation' })),
  frozen_time: DateTime('The time every object of the clock is at; while ADVANCING it moves step by step towards `target_frozen_time`'),
  status: Type.Enum(TEST_CLOCK_STATUSES, { description: 'READY, or ADVANCING while an advance runs' }),
  target_frozen_time: Nullable(DateTime('Where the running advance goes; null when READY')),
  created_at: DateTime('When the clock was created (service time)'),
  updated_at: DateTime('Last change of the clock (service time)'),
});

// Times are checked by the service (RFC 3339 with a zone, within the supported years), so a
// mistake is a 400 that names the field with an example rather than a schema error.
export const CreateTestClockRequest = Type.Object({
  frozen_time: Type.String({ description: 'RFC 3339 date-time with a zone, 2000-01-01 to 2099-12-31: where the clock starts', examples: ['2026-01-01T00:00:00Z'] }),
  name: Type.Optional(Nullable(Type.String({ maxLength: NAME_MAX_CHARS, description: 'A name to tell clocks apart' }))),
}, { additionalProperties: false });

export const AdvanceTestClockRequest = Type.Object({
  frozen_time: Type.String({ description: 'RFC 3339 date-time with a zone: after the clock\'s frozen_time, at most two years later', examples: ['2026-02-01T00:00:00Z'] }),
}, { additionalProperties: false });

export const DeletedTestClock = Type.Object({
  id: Type.String({ description: 'The deleted test clock' }),
  deleted: Type.Literal(true),
  deleted_objects: Type.Object({
    customers: Type.Integer({ minimum: 0 }),
    subscriptions: Type.Integer({ minimum: 0 }),
    invoices: Type.Integer({ minimum: 0 }),
    credit_notes: Type.Integer({ minimum: 0 }),
  }, { description: 'How many objects of the clock were deleted with it (their usage events, e-mails, portal tokens, checkout sessions and events went too)' }),
});

/** The wire shape of a test clock: the API's answers and the `data` of test_clock.* events. */
export function testClockToWire(row: TestClockRow) {
  return {
    id: row.id,
    name: row.name,
    frozen_time: iso(row.frozen_time),
    status: row.status,
    target_frozen_time: isoOrNull(row.target_frozen_time),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
