// The alerts module assembled (src/module.ts): alert definitions, their evaluation when usage is
// committed and at period ends, and their history.
import type { Pool } from '../../db/pool.js';
import type { Clock } from '../../kernel/clock.js';
import type { Module } from '../../module.js';
import { loadMetricDefinition } from '../metrics/index.js';
import { createEstimates } from './estimate.js';
import { evaluateAlerts, type EvaluationReason } from './evaluate.js';
import { alertTasks, resolveEndedPeriods } from './jobs.js';
import { createMeasurer, type MeasurePorts } from './measure.js';
import { alertRoutes } from './routes.js';
import { createAlertsService, type AlertsService } from './service.js';
import { createAlertTrigger, type StoredEventKey } from './trigger.js';

export interface AlertsApi {
  service: AlertsService;
  /** The ingest hook: usage calls it after its events committed (never throws, never waits). */
  eventsStored(tenantId: string, events: readonly StoredEventKey[]): void;
  /** Evaluates alerts now, bypassing the coalescing rounds (tests race it; a credit top-up may call it). Returns the transitions written. */
  evaluate(tenantId: string, alertIds: readonly string[], reason?: EvaluationReason): Promise<number>;
  /** Evaluates a customer's active alerts soon (a credit grant or top-up changed its balance). */
  evaluateCustomerSoon(tenantId: string, customerId: string): Promise<void>;
  /** Runs the period-boundary resolution once (tests; the job runs it every minute). */
  resolveEndedPeriods(): Promise<number>;
  /** Resolves once no evaluation is running or waiting. */
  idle(): Promise<void>;
}

export function createAlertsModule(deps: { pool: Pool; clock: Clock; ports?: MeasurePorts; onError?: (error: unknown) => void }): Module<AlertsApi> {
  const { pool, clock } = deps;
  // alerts whose scope a round could not read yet go back to the rounds (trigger is created below; called later)
  const measurer = createMeasurer({ pool, clock, ports: deps.ports ?? {}, defer: (tenantId, ids) => trigger.evaluateSoon(tenantId, ids) });
  // what every evaluation measured, for the fast lane's crossing estimates (estimate.ts)
  const estimates = createEstimates();
  const evaluate = (tenantId: string, ids: readonly string[], reason: EvaluationReason = 'REQUESTED') => evaluateAlerts({ pool, clock, measurer, estimates }, tenantId, ids, reason);
  const metricOf = async (tenantId: string, metricId: string) => {
    const def = await loadMetricDefinition(pool, tenantId, metricId);
    return def && { aggregation: def.aggregation_type, property: def.aggregation_key };
  };
  const trigger = createAlertTrigger({ pool, evaluate: (tenantId, ids, reason) => evaluate(tenantId, ids, reason), onError: deps.onError, fastLane: { estimates, metricOf } });
  const service = createAlertsService({ pool, clock, trigger, forget: (id) => (measurer.forget(id), estimates.forget(id)) });
  return {
    routes: alertRoutes(service),
    tasks: alertTasks({ pool, clock, evaluate: (tenantId, ids, reason) => evaluate(tenantId, ids, reason) }),
    api: {
      service,
      eventsStored: trigger.eventsStored,
      evaluate,
      evaluateCustomerSoon: async (tenantId, customerId) => {
        const { data } = await service.list(tenantId, { customer_id: customerId, status: 'ACTIVE', per_page: 100 });
        trigger.evaluateSoon(tenantId, data.map((v) => v.alert.id));
      },
      resolveEndedPeriods: () => resolveEndedPeriods({ pool, clock, evaluate: (tenantId, ids, reason) => evaluate(tenantId, ids, reason) }),
      idle: trigger.idle,
    },
  };
}
