import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, errorResponses, listResponse, PageQuery } from '../../http/schemas.js';
import * as ex from './examples.js';
import { Alert, AlertHistoryEntry, alertToWire, CreateAlertRequest, historyToWire, UpdateAlertRequest } from './schemas.js';
import type { AlertsService } from './service.js';

const AlertParams = Type.Object({ alert_id: Type.String({ description: 'Alert ID', examples: [ex.ALERT_ID] }) });

/** How alerts fire, said by the operations that create or change them. */
const FIRING =
  'Each threshold fires `alert.triggered` once when the value crosses it (usage and spend: reaches it or more; CREDIT_BALANCE: falls below it) and `alert.resolved` once when the ' +
  'value is back (a new period starts usage again from zero; a top-up raises a balance). Evaluation runs when usage events are committed, for the alerts those events touch, ' +
  'and at each period end; two evaluations racing give one transition. The current period is the subscription\'s, or for a customer alert the oldest serving subscription\'s.';

export function alertRoutes(service: AlertsService) {
  return (app: App) => {
    const tags = ['Alerts'];
    const base = '/api/v1/alerts';

    app.post(base, {
      schema: {
        tags,
        operationId: 'create_alert',
        summary: 'Create a usage alert',
        description:
          'Creates an alert on a customer (or one of its subscriptions) with one or more thresholds (decimal strings, distinct; >= 0 except for CREDIT_BALANCE). ' +
          '`metric_id` is required for USAGE_UNITS and refused for the other kinds; `subscription_id` must be the customer\'s and is refused for CREDIT_BALANCE. ' +
          'A value already over a threshold fires at once. ' + FIRING,
        body: documented(CreateAlertRequest, 'What to watch and its thresholds', ex.createAlertExample),
        response: { 201: documented(Alert, 'The alert with the state of each threshold', ex.alertExample), ...errorResponses([400, 401]) },
      },
    }, async (request, reply) => reply.status(201).send(alertToWire(await service.create(authOf(request).tenantId, request.body))));

    app.get(base, {
      schema: {
        tags,
        operationId: 'list_alerts',
        summary: 'List alerts',
        description: 'The tenant\'s alerts, newest first, with the state of each threshold; filter by `customer_id` (id or alias) and `status`. Paged with `page` (0-based) and `per_page` (1-100, default 10).',
        querystring: Type.Object({ customer_id: Type.Optional(Type.String({ description: 'Customer ID or alias' })), status: Type.Optional(Type.Enum(['ACTIVE', 'ARCHIVED'])), ...PageQuery }),
        response: { 200: documented(listResponse(Alert), 'One page of alerts', { data: [ex.alertExample], pagination_meta: { page: 0, per_page: 10, total_items: 1, total_pages: 1 } }), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.list(authOf(request).tenantId, request.query);
      return { data: page.data.map(alertToWire), pagination_meta: page.pagination_meta };
    });

    app.get(`${base}/:alert_id`, {
      schema: {
        tags,
        operationId: 'get_alert',
        summary: 'Get an alert',
        description: 'One alert with the state of each threshold: whether it is triggered, in which period, and the value at its last transition. Another tenant\'s alert is a 404.',
        params: AlertParams,
        response: { 200: documented(Alert, 'The alert', ex.alertExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => alertToWire(await service.get(authOf(request).tenantId, request.params.alert_id)));

    app.patch(`${base}/:alert_id`, {
      schema: {
        tags,
        operationId: 'update_alert',
        summary: 'Change an alert\'s name or thresholds',
        description:
          'Replaces the name or the list of thresholds. A threshold kept keeps its state; a new one starts untriggered and is evaluated at once; a removed one is dropped without ' +
          'an event (its history stays). An archived alert is a 400. ' + FIRING,
        params: AlertParams,
        body: documented(UpdateAlertRequest, 'The fields to change', { thresholds: ['5000', '8000', '10000'] }),
        response: { 200: documented(Alert, 'The alert as changed', ex.alertExample), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => alertToWire(await service.update(authOf(request).tenantId, request.params.alert_id, request.body)));

    app.delete(`${base}/:alert_id`, {
      schema: {
        tags,
        operationId: 'archive_alert',
        summary: 'Archive an alert',
        description: 'Stops the alert: it is no longer evaluated and sends no more events (a triggered threshold is not resolved). It stays readable, with status ARCHIVED, and so does its history.',
        params: AlertParams,
        response: { 204: documented(Type.Null(), 'Archived; no body.'), ...errorResponses([401, 404]) },
      },
    }, async (request, reply) => {
      await service.archive(authOf(request).tenantId, request.params.alert_id);
      return reply.status(204).send(null);
    });

    app.get(`${base}/:alert_id/history`, {
      schema: {
        tags,
        operationId: 'list_alert_history',
        summary: 'List an alert\'s transitions',
        description:
          'Every transition of the alert\'s thresholds, newest first: TRIGGERED or RESOLVED, the value measured, the period, why the evaluation ran and the id of the event sent. ' +
          'Paged with `page` (0-based) and `per_page` (1-100, default 10).',
        params: AlertParams,
        querystring: Type.Object({ ...PageQuery }),
        response: { 200: documented(listResponse(AlertHistoryEntry), 'One page of transitions', { data: [ex.historyExample], pagination_meta: { page: 0, per_page: 10, total_items: 1, total_pages: 1 } }), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => {
      const page = await service.history(authOf(request).tenantId, request.params.alert_id, request.query);
      return { data: page.data.map(historyToWire), pagination_meta: page.pagination_meta };
    });
  };
}
