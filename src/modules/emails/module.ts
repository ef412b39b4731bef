// The emails module assembled (src/module.ts): customer e-mails, written from outbox events.
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { Module } from '../../module.js';
import type { Mailer } from '../../adapters/email/mailer.js';
import { emailRoutes } from './routes.js';
import { createEmailService, SEND_EMAIL_TASK, type EmailPorts, type EmailService } from './service.js';

export function createEmailsModule(deps: { pool: Pool; clock: Clock; mailer: Mailer; ports: EmailPorts }): Module<EmailService> {
  const service = createEmailService(deps);
  return { routes: emailRoutes(service), tasks: { [SEND_EMAIL_TASK]: service.send }, outboxConsumers: [service.outboxConsumer], api: service };
}
