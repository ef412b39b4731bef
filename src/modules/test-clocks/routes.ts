import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, ErrorBody, errorResponses, examplePage, listResponse, orderByQuery, PageQuery } from '../../http/schemas.js';
import * as ex from './examples.js';
import { AdvanceTestClockRequest, CreateTestClockRequest, DeletedTestClock, TestClock, testClockToWire } from './schemas.js';
import type { TestClocksService } from './service.js';

const ClockParams = Type.Object({ test_clock_id: Type.String({ description: 'Test clock ID', examples: [ex.TEST_CLOCK_ID] }) });

const SANDBOX_ONLY = 'Sandbox tenants only: with a production tenant\'s credentials every test-clock operation is a 403 that says so.';
const PRODUCTION = documented(ErrorBody, 'A production tenant: test clocks exist only in sandbox tenants.', {
  code: 'FORBIDDEN',
  message: 'test clocks exist only in sandbox tenants, and this request acts for a production tenant; use a sandbox API key (sk_sandbox_...)',
});
const NOT_FOUND = documented(ErrorBody, 'No test clock with this id in the tenant.', { code: 'NOT_FOUND', message: 'test clock not found' });

export function testClockRoutes(service: TestClocksService) {
  return (app: App) => {
    const tags = ['Test clocks'];

    app.post('/api/v1/test-clocks', {
      schema: {
        tags,
        operationId: 'create_test_clock',
        summary: 'Create a test clock',
        description:
          'Creates a test clock frozen at `frozen_time` (RFC 3339 with a zone, from 2000 to 2099; past or future), status READY. Customers created with its `test_clock_id` ' +
          'run, with their subscriptions, invoices and usage, on the clock\'s time instead of the service clock. ' + SANDBOX_ONLY + ' Emits `test_clock.created`.',
        body: documented(CreateTestClockRequest, 'Where the clock starts, and a name', ex.createExample),
        response: { 201: documented(TestClock, 'The new clock', ex.readyExample), ...errorResponses([400, 401]), 403: PRODUCTION },
      },
    }, async (request, reply) => {
      const auth = authOf(request);
      return reply.status(201).send(testClockToWire(await service.create(auth.tenantId, auth.environment, request.body)));
    });

    app.get('/api/v1/test-clocks', {
      schema: {
        tags,
        operationId: 'list_test_clocks',
        summary: 'List test clocks',
        description: 'The tenant\'s test clocks, newest first unless `order_by` says otherwise. Paged: `page` from 0, `per_page` 1 to 100 (default 10). ' + SANDBOX_ONLY,
        querystring: Type.Object({ order_by: orderByQuery(['created_at', 'frozen_time'], 'created_at.desc'), ...PageQuery }),
        response: { 200: documented(listResponse(TestClock), 'A page of test clocks', examplePage([ex.readyExample])), ...errorResponses([400, 401]), 403: PRODUCTION },
      },
    }, async (request) => {
      const auth = authOf(request);
      const page = await service.list(auth.tenantId, auth.environment, request.query);
      return { data: page.data.map(testClockToWire), pagination_meta: page.pagination_meta };
    });

    app.get('/api/v1/test-clocks/:test_clock_id', {
      schema: {
        tags,
        operationId: 'get_test_clock',
        summary: 'Get a test clock',
        description: 'One test clock: while an advance runs its status is ADVANCING, `target_frozen_time` says where it goes and `frozen_time` how far its objects are; then READY. ' + SANDBOX_ONLY,
        params: ClockParams,
        response: { 200: documented(TestClock, 'The clock', ex.advancedExample), ...errorResponses([401]), 403: PRODUCTION, 404: NOT_FOUND },
      },
    }, async (request) => {
      const auth = authOf(request);
      return testClockToWire(await service.get(auth.tenantId, auth.environment, request.params.test_clock_id));
    });

    app.post('/api/v1/test-clocks/:test_clock_id/advance', {
      schema: {
        tags,
        operationId: 'advance_test_clock',
        summary: 'Advance a test clock',
        description:
          'Moves the clock forward to `frozen_time`: after its current frozen time and at most two years later (otherwise a 400 that says which). The answer is the clock ADVANCING ' +
          '(`test_clock.advancing`); a background job then makes everything that depends on time happen for the clock\'s customers as if the time had passed, day by day: ' +
          'subscription statuses (trials ending, activations, cancellations), period invoices, grace periods and finalization, with their webhooks and e-mails carrying the ' +
          'simulated dates. When it is done the clock is READY at `frozen_time` and `test_clock.ready` is emitted. A clock already ADVANCING is a 409. ' + SANDBOX_ONLY,
        params: ClockParams,
        body: documented(AdvanceTestClockRequest, 'Where to move the clock', ex.advanceExample),
        response: {
          200: documented(TestClock, 'The clock, ADVANCING', ex.advancingExample),
          ...errorResponses([400, 401]),
          403: PRODUCTION,
          404: NOT_FOUND,
          409: documented(ErrorBody, 'An advance is running.', { code: 'CONFLICT', message: 'test clock is ADVANCING to 2026-02-01T00:00:00.000Z; advance it again once its status is READY' }),
        },
      },
    }, async (request) => {
      const auth = authOf(request);
      return testClockToWire(await service.advance(auth.tenantId, auth.environment, request.params.test_clock_id, request.body));
    });

    app.delete('/api/v1/test-clocks/:test_clock_id', {
      schema: {
        tags,
        operationId: 'delete_test_clock',
        summary: 'Delete a test clock',
        description:
          'Deletes the clock and its objects: its customers with their subscriptions, invoices (and PDFs), credit notes, payments, balance, usage events, checkout sessions, ' +
          'portal tokens, e-mails and the events about them (webhook deliveries already made stay in their log). A clock ADVANCING is a 409. ' + SANDBOX_ONLY + ' Emits `test_clock.deleted`.',
        params: ClockParams,
        response: {
          200: documented(DeletedTestClock, 'Deleted, with how many objects went with it', ex.deletedExample),
          ...errorResponses([401]),
          403: PRODUCTION,
          404: NOT_FOUND,
          409: documented(ErrorBody, 'An advance is running.', { code: 'CONFLICT', message: 'test clock is ADVANCING to 2026-02-01T00:00:00.000Z; delete it once its status is READY' }),
        },
      },
    }, async (request) => {
      const auth = authOf(request);
      return service.remove(auth.tenantId, auth.environment, request.params.test_clock_id);
    });
  };
}
