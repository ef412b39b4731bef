import type { Clock } from '../../kernel/clock.js';
import { newId } from '../../kernel/ids.js';
import type { Pool } from '../../db/pool.js';
import { withTx, type Tx } from '../../db/tx.js';
import { scoped } from '../../db/tenant-scope.js';
import { writeOutboxEvent, type OutboxConsumer, type OutboxRecord } from '../../db/outbox.js';
import { enqueueJob } from '../../jobs/queue.js';
import type { PostJson } from '../../adapters/http/post-json.js';
import { isPrivateAddress, PRIVATE_ADDRESS, privateAddressProblem, urlShapeProblem, type LookupAll } from '../../adapters/http/url-guard.js';
import { processWorkerId } from '../../jobs/worker-id.js';
import { findTenantProfile } from '../accounts/index.js';
import * as endpoints from './repository.js';
import * as deliveries from './deliveries-repository.js';
import type { ClaimedDelivery, DeliveryRow } from './deliveries-repository.js';
import { nextAttemptAt, shouldDisableEndpoint } from './retry-policy.js';
import { signatureHeaders } from './signing.js';
import type { SigningSecretBox } from './secrets.js';

export const DELIVER_DUE_TASK = 'webhooks.deliver_due';
const DELIVER_DUE_JOB_KEY = 'webhooks.deliver_due';
/** The worker re-checks at least this often, so nothing waits on a lost wake-up for long. */
const MAX_SLEEP_MS = 5 * 60 * 1000;
const MIN_SLEEP_MS = 1000;

export interface DeliveryDeps {
  pool: Pool;
  /** Business time: retry schedule, due times, the disable rule. */
  clock: Clock;
  /**
   * Wall time for what leaves the process: `webhook-timestamp` (receivers check it against their
   * own clock to refuse replays) and the worker's next wake-up in the job queue.
   */
  wallClock: Clock;
  post: PostJson;
  timeoutMs: number;
  allowPrivateUrls: boolean;
  /** Attempts run side by side per tenant; each holds its own claim. */
  concurrency?: number;
  secrets: SigningSecretBox;
  /** How webhook hosts resolve, for the guard and the connection alike; tests pass their own. */
  lookup?: LookupAll;
}

/** The body receivers get: the reference's `<Kind>Event` = the event data plus id, type, timestamp. */
export function eventEnvelope(eventId: string, eventType: string, createdAt: Date, data: Record<string, unknown>): Record<string, unknown> {
  return { ...data, id: eventId, type: eventType, timestamp: createdAt.toISOString() };
}

/** A new delivery of an event to one endpoint, due now (events from the outbox, redeliveries, tests). */
export function pendingDelivery(
  clock: Clock,
  endpointId: string,
  source: Pick<DeliveryRow, 'event_id' | 'event_type' | 'object_id' | 'event_seq' | 'payload'>,
  trigger: DeliveryRow['trigger'],
): DeliveryRow {
  return {
    id: newId('webhookDelivery', clock.now().getTime()),
    endpoint_id: endpointId,
    event_id: source.event_id,
    event_type: source.event_type,
    object_id: source.object_id,
    event_seq: source.event_seq,
    payload: source.payload,
    trigger,
    status: 'PENDING',
    attempt_count: 0,
    next_attempt_at: clock.now(),
    last_attempt_at: null,
    last_status_code: null,
    created_at: clock.now(),
  };
}

/** Wakes the delivery worker now, in the caller's transaction. */
export async function kickDeliveries(tx: Tx): Promise<void> {
  await enqueueJob(tx, DELIVER_DUE_TASK, {}, { jobKey: DELIVER_DUE_JOB_KEY });
}

export function createDeliveryService(deps: DeliveryDeps) {
  const { pool, clock } = deps;

  /** The webhooks consumer of the outbox: one delivery row per matching enabled endpoint. */
  const outboxConsumer: OutboxConsumer = {
    name: 'webhooks',
    async handle(tx, event: OutboxRecord) {
      const targets = await endpoints.endpointsFor(tx, event.tenant_id, event.event_type);
      let created = 0;
      for (const target of targets) {
        const row = pendingDelivery(clock, target.id, {
          event_id: event.id,
          event_type: event.event_type,
          object_id: event.object_id,
          event_seq: event.seq,
          payload: eventEnvelope(event.id, event.event_type, event.created_at, event.payload),
        }, 'EVENT');
        if (await deliveries.insertDelivery(tx, event.tenant_id, row)) created += 1;
      }
      if (created > 0) await kickDeliveries(tx);
    },
  };

  /**
   * The secrets that sign this attempt: the current one, and the previous one during a rotation's
   * grace period. undefined when the current one does not open (SECRET_KEY changed since it was
   * sealed): the attempt is then recorded as failed, saying to rotate, instead of failing the job.
   */
  function secretsOf(tenantId: string, delivery: ClaimedDelivery, now: Date): string[] | undefined {
    const open = (stored: string) => {
      try {
        return deps.secrets.open(stored, tenantId, delivery.endpoint_id);
      } catch {
        return undefined;
      }
    };
    const current = open(delivery.secret);
    if (current === undefined) return undefined;
    const previous = delivery.previous_secret && delivery.previous_secret_expires_at && delivery.previous_secret_expires_at > now ? open(delivery.previous_secret) : undefined;
    return previous === undefined ? [current] : [current, previous];
  }

  /** Whether the tenant's webhooks must stay off private addresses (production, unless configured otherwise). */
  async function guarded(tx: Tx, tenantId: string): Promise<boolean> {
    return !deps.allowPrivateUrls && ((await findTenantProfile(tx, tenantId))?.environment ?? 'production') !== 'sandbox';
  }

  /** The connection refuses a private address too: DNS may answer differently than it did for the check (rebinding). */
  const refuseAddress = (address: string) => (isPrivateAddress(address) ? `url ${PRIVATE_ADDRESS}` : undefined);

  /**
   * One attempt of one due delivery, in one transaction that holds the claim: if the process
   * dies mid-request the claim is released and the attempt runs again (at-least-once).
   */
  async function attemptOne(tenantId: string, workerId = processWorkerId()): Promise<boolean> {
    return withTx(pool, async (tx) => {
      const now = clock.now();
      const delivery = await deliveries.claimDueDelivery(tx, tenantId, now);
      if (!delivery) return false;
      const body = JSON.stringify(delivery.payload);
      const guard = await guarded(tx, tenantId);
      const refused = urlShapeProblem(delivery.url, 'url') ?? (guard ? await privateAddressProblem(delivery.url, 'url', deps.lookup) : undefined);
      const secrets = secretsOf(tenantId, delivery, now);
      const notSent = refused
        ? `refused: ${refused}`
        : secrets === undefined ? 'not sent: the signing secret does not open with this SECRET_KEY; rotate the endpoint\'s secret' : undefined;
      const outcome = notSent !== undefined || secrets === undefined
        ? { statusCode: null, responseExcerpt: null, error: notSent ?? null, durationMs: 0 }
        : await deps.post(delivery.url, body, signatureHeaders(delivery.event_id, deps.wallClock.now(), body, secrets), deps.timeoutMs, { lookup: deps.lookup, ...(guard ? { refuseAddress } : {}) });
      const succeeded = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
      const attemptNumber = delivery.attempt_count + 1;
      await deliveries.recordAttempt(tx, tenantId, {
        delivery_id: delivery.id,
        attempt_number: attemptNumber,
        attempted_at: now,
        status_code: outcome.statusCode,
        duration_ms: outcome.durationMs,
        response_excerpt: outcome.responseExcerpt,
        error: outcome.error ?? (succeeded ? null : `HTTP ${outcome.statusCode}`),
        succeeded,
        worker_id: workerId,
      });
      const retryAt = succeeded ? null : nextAttemptAt(attemptNumber, now);
      await deliveries.updateDeliveryAfterAttempt(tx, tenantId, delivery.id, {
        status: succeeded ? 'SUCCEEDED' : retryAt ? 'PENDING' : 'FAILED',
        attemptCount: attemptNumber,
        nextAttemptAt: retryAt,
        attemptedAt: now,
        statusCode: outcome.statusCode,
      });
      if (succeeded) {
        await endpoints.markEndpointHealthy(tx, tenantId, delivery.endpoint_id);
      } else {
        const failingSince = await endpoints.markEndpointFailing(tx, tenantId, delivery.endpoint_id, now);
        if (shouldDisableEndpoint(failingSince, now) && (await endpoints.disableFailingEndpoint(tx, tenantId, delivery.endpoint_id, now))) {
          await writeOutboxEvent(scoped(tx, tenantId), clock, {
            type: 'webhook_endpoint.disabled',
            objectId: delivery.endpoint_id,
            data: { endpoint_id: delivery.endpoint_id, url: delivery.url, reason: 'FAILING', failing_since: failingSince.toISOString(), disabled_at: now.toISOString() },
          });
        }
      }
      return true;
    });
  }

  /**
   * Attempts every delivery due at `clock.now()`, across tenants, then schedules the worker's
   * next wake-up. `workerId` (the job's worker, else this process) is written on each attempt. Safe to run in several processes at once: claims skip each other's rows.
   * Returns the number of attempts made.
   */
  async function deliverDue(workerId = processWorkerId()): Promise<number> {
    let attempts = 0;
    const concurrency = deps.concurrency ?? 4;
    for (const tenantId of await deliveries.tenantsWithDueDeliveries(pool, clock.now())) {
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (await attemptOne(tenantId, workerId)) attempts += 1;
        }),
      );
    }
    await scheduleNextRun();
    return attempts;
  }

  async function scheduleNextRun(): Promise<void> {
    const earliest = await deliveries.earliestPendingAt(pool);
    if (!earliest) return;
    const waitMs = Math.min(MAX_SLEEP_MS, Math.max(MIN_SLEEP_MS, earliest.getTime() - clock.now().getTime()));
    await enqueueJob(pool, DELIVER_DUE_TASK, {}, { jobKey: DELIVER_DUE_JOB_KEY, runAt: new Date(deps.wallClock.now().getTime() + waitMs) });
  }

  return { outboxConsumer, deliverDue, attemptOne };
}

export type DeliveryService = ReturnType<typeof createDeliveryService>;
