// HTTP API of a tenant's dunning settings (docs/payments.md, "Dunning").
import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, errorResponses } from '../../http/schemas.js';
import { DUNNING_FINAL_ACTIONS, MAX_DUNNING_DAY, MAX_DUNNING_RETRIES } from '../../domain/index.js';
import type { Dunning } from './dunning.js';
import type { DunningSettingsRow } from './repository.js';

const FINAL_ACTION_HELP = 'MARK_UNCOLLECTIBLE writes the invoice off; CANCEL_SUBSCRIPTION cancels its subscription today; NONE leaves both (the subscription stays PAST_DUE until the invoice is paid)';

const DunningSettings = Type.Object({
  retry_days: Type.Array(Type.Integer(), { description: 'Days after the first failed automatic charge on which it is tried again, increasing', examples: [[3, 5, 7]] }),
  final_action: Type.String({ enum: [...DUNNING_FINAL_ACTIONS], description: `What happens after the last retry failed: ${FINAL_ACTION_HELP}` }),
});

const DunningSettingsRequest = Type.Object({
  retry_days: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: MAX_DUNNING_DAY }), {
    maxItems: MAX_DUNNING_RETRIES,
    description: `Days after the failure, strictly increasing, each 1 to ${MAX_DUNNING_DAY}, at most ${MAX_DUNNING_RETRIES}; [] means no retry (the final action follows the first failure)`,
  })),
  final_action: Type.Optional(Type.String({ enum: [...DUNNING_FINAL_ACTIONS], description: FINAL_ACTION_HELP })),
}, { additionalProperties: false });

const example = { retry_days: [3, 5, 7], final_action: 'NONE' };
const toWire = (row: DunningSettingsRow) => ({ retry_days: row.retry_days, final_action: row.final_action });

export function dunningRoutes(dunning: Dunning) {
  return async (app: App) => {
    const tags = ['Payments'];
    app.get('/api/v1/dunning-settings', {
      schema: {
        tags,
        operationId: 'get_dunning_settings',
        summary: 'Get the tenant\'s dunning settings',
        description:
          'When a failed automatic charge is tried again and what happens after the last retry. Until changed: retries 3, 5 and 7 days after the failure, final action NONE. ' +
          'Each failure mails the customer a pay link (event `invoice.payment_failed`).',
        response: { 200: documented(DunningSettings, 'The settings', example), ...errorResponses([401]) },
      },
    }, async (request) => toWire(await dunning.getSettings(authOf(request).tenantId)));

    app.patch('/api/v1/dunning-settings', {
      schema: {
        tags,
        operationId: 'update_dunning_settings',
        summary: 'Change the tenant\'s dunning settings',
        description:
          'Changes `retry_days` and/or `final_action`; omitted fields keep their value. Applies to invoices whose first charge fails from now on: a dunning already under way ' +
          'keeps the schedule it started with. Days out of order, outside 1..90, more than 10, or an unknown final action are a 400.',
        body: documented(DunningSettingsRequest, 'The fields to change', { retry_days: [1, 3, 7, 14], final_action: 'MARK_UNCOLLECTIBLE' }),
        response: { 200: documented(DunningSettings, 'The settings', { retry_days: [1, 3, 7, 14], final_action: 'MARK_UNCOLLECTIBLE' }), ...errorResponses([400, 401]) },
      },
    }, async (request) => toWire(await dunning.updateSettings(authOf(request).tenantId, request.body)));
  };
}
