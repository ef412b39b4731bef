// The webhooks module assembled (src/module.ts): endpoints, deliveries, and the outbox relay.
import { systemClock, type Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import { OUTBOX_DISPATCH_TASK, type OutboxConsumer } from '../../db/outbox.js';
import type { Module } from '../../module.js';
import { postJson } from '../../adapters/http/post-json.js';
import { createDeliveryService, DELIVER_DUE_TASK, type DeliveryService } from './delivery-service.js';
import { createEndpointsService, type EndpointsService } from './endpoints-service.js';
import { relayOutbox } from './relay.js';
import { createSigningSecretBox, sealStoredSecrets } from './secrets.js';
import { webhookRoutes } from './routes.js';

export interface WebhooksDeps {
  pool: Pool;
  clock: Clock;
  timeoutMs: number;
  allowPrivateUrls: boolean;
  /** The service secret, which seals the endpoints' signing secrets. */
  secretKey: string;
  /** The other modules' outbox consumers (read when the relay runs); webhook deliveries are served first. */
  outboxConsumers: () => OutboxConsumer[];
}

export function createWebhooksModule(deps: WebhooksDeps): Module<{ endpoints: EndpointsService; delivery: DeliveryService; sealStoredSecrets: () => Promise<number> }> {
  const { pool, clock, allowPrivateUrls } = deps;
  const secrets = createSigningSecretBox(deps.secretKey);
  const endpoints = createEndpointsService({ pool, clock, allowPrivateUrls, secrets });
  const delivery = createDeliveryService({ pool, clock, wallClock: systemClock, post: postJson, timeoutMs: deps.timeoutMs, allowPrivateUrls, secrets });
  return {
    routes: webhookRoutes(endpoints),
    tasks: {
      // Fans new outbox events out to webhook deliveries and the other consumers, each exactly once.
      [OUTBOX_DISPATCH_TASK]: async () => {
        await relayOutbox(pool, [delivery.outboxConsumer, ...deps.outboxConsumers()]);
      },
      [DELIVER_DUE_TASK]: async (_payload, context) => {
        await delivery.deliverDue(context?.workerId);
      },
    },
    api: { endpoints, delivery, sealStoredSecrets: () => sealStoredSecrets(pool, secrets) },
  };
}
