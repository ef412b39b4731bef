// The credit-notes module assembled (src/module.ts): credit notes against finalized invoices.
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { Module } from '../../module.js';
import type { CustomPropertiesPort } from '../custom-properties/index.js';
import { creditNoteRoutes } from './routes.js';
import { createCreditNotesService, type CreditNotesService } from './service.js';

export function createCreditNotesModule(deps: { pool: Pool; clock: Clock; properties: CustomPropertiesPort }): Module<CreditNotesService> {
  const service = createCreditNotesService(deps);
  return { routes: creditNoteRoutes(service), api: service };
}
