// Use cases of invoicing entities: list, get, create, update, archive, unarchive. A tenant has
// exactly one default entity (new customers get it), any number of others; each has its own
// number sequences, defaults and tax country. Writes that move the default or archive take the
// tenant's entity lock (lockTenantEntities), so they happen one at a time.
import type { Clock } from '../../kernel/clock.js';
import { badRequest, conflict, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import type { Pool, Queryable } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { countActiveCustomersOfEntity } from '../customers/index.js';
import {
  DEFAULT_ENTITY_COUNTRY, ensureDefaultEntity, findEntity, insertEntity, listEntities, lockTenantEntities, makeDefault, updateEntity,
  type InvoicingEntityRow,
} from './entities.js';
import { checkPeppolEndpoint, entityChanges, type EntityChanges, type EntityInput } from './entity-input.js';
import type { DraftRefresher } from './lifecycle.js';
import { lockDraftsOfEntity } from './repository.js';

/** Drafts refreshed per call of the refresher when an entity changes. */
const REFRESH_BATCH_SIZE = 500;

export type CreateInvoicingEntityInput = EntityInput & { legal_name: string; country: string };

function apply(current: InvoicingEntityRow, changes: EntityChanges, now: Date): InvoicingEntityRow {
  const { logo: _logo, ...columns } = changes;
  const next = { ...current, ...columns, updated_at: now };
  // switching e-invoicing on without a format keeps the format it had, else Factur-X (what the switch promised before formats existed)
  if (changes.e_invoicing_format === undefined && changes.e_invoicing_enabled !== undefined) {
    next.e_invoicing_format = changes.e_invoicing_enabled ? (current.e_invoicing_format ?? 'FACTURX') : null;
  }
  return next;
}

export function createInvoicingEntitiesService(deps: { pool: Pool; clock: Clock; refresh?: DraftRefresher }) {
  const { pool, clock } = deps;

  async function list(tenantId: string, query: { include_archived?: boolean } = {}): Promise<InvoicingEntityRow[]> {
    await ensureDefaultEntity(pool, tenantId, clock);
    return listEntities(pool, tenantId, query.include_archived ?? false);
  }

  async function get(tenantId: string, entityId: string): Promise<InvoicingEntityRow> {
    const row = await findEntity(pool, tenantId, entityId);
    if (!row) throw notFound('invoicing entity');
    return row;
  }

  async function locked(tx: Queryable, tenantId: string, entityId: string): Promise<InvoicingEntityRow> {
    await lockTenantEntities(tx, tenantId);
    const row = await findEntity(tx, tenantId, entityId, true);
    if (!row) throw notFound('invoicing entity');
    return row;
  }

  /**
   * Refreshes the entity's drafts in the caller's tx through the one draft refresher, so each
   * shows the entity as it is now (seller details, tax of its country). Drafts being finalized
   * meanwhile are skipped: their finalization refreshes them itself.
   */
  async function refreshDrafts(tx: Queryable, tenantId: string, entityId: string): Promise<void> {
    if (!deps.refresh) return;
    let after = '';
    for (;;) {
      const drafts = await lockDraftsOfEntity(tx, tenantId, entityId, after, REFRESH_BATCH_SIZE);
      if (drafts.length === 0) return;
      await deps.refresh(tx, tenantId, drafts);
      after = drafts[drafts.length - 1]!.id;
    }
  }

  /**
   * A new entity with counters at 1. It is the default when asked (`is_default`), or when the
   * tenant has no entity yet; otherwise the default stays.
   */
  async function create(tenantId: string, input: CreateInvoicingEntityInput): Promise<InvoicingEntityRow> {
    const changes = await entityChanges(input);
    const now = clock.now();
    return withTx(pool, async (tx) => {
      await lockTenantEntities(tx, tenantId);
      const row = apply({
        id: newId('invoicingEntity', now.getTime()),
        is_default: false,
        legal_name: input.legal_name,
        address_line1: null, address_line2: null, city: null, zip_code: null, state: null,
        country: DEFAULT_ENTITY_COUNTRY,
        vat_number: null, tax_number: null, registration_number: null, legal_footer: null, payment_instructions: null, bank_details: null,
        invoice_number_prefix: 'INV-', credit_note_number_prefix: 'CN-',
        next_invoice_number: 1n, next_credit_note_number: 1n,
        net_terms: 30, grace_period_hours: 24, e_invoicing_enabled: false, e_invoicing_format: null,
        contact_name: null, contact_phone: null, contact_email: null, peppol_endpoint_scheme: null, peppol_endpoint_id: null,
        logo_content_type: null, logo_sha256: null, logo_size_bytes: null,
        created_at: now, updated_at: now, archived_at: null,
      }, changes, now);
      checkPeppolEndpoint(row);
      await insertEntity(tx, tenantId, row, changes.logo ?? null);
      const hasDefault = (await listEntities(tx, tenantId, true)).some((entity) => entity.is_default);
      if (input.is_default === true || !hasDefault) await makeDefault(tx, tenantId, row.id, now);
      return (await findEntity(tx, tenantId, row.id))!;
    });
  }

  /**
   * Partial update; counters are never settable (numbers stay gapless). `is_default: true` makes
   * it the default in the same transaction (the previous default stops being one); `false` on the
   * default is refused: make another entity the default instead. The entity's drafts are
   * refreshed (seller details, tax), finalized invoices never change.
   */
  async function update(tenantId: string, entityId: string, input: EntityInput): Promise<InvoicingEntityRow> {
    const changes = await entityChanges(input);
    return withTx(pool, async (tx) => {
      const current = await locked(tx, tenantId, entityId);
      if (input.is_default === false && current.is_default) {
        throw badRequest('is_default cannot be set to false: a tenant always has one default entity; set is_default true on another entity instead');
      }
      if (input.is_default === true && current.archived_at) throw conflict(`invoicing entity ${entityId} is archived and cannot be the default; unarchive it first`);
      const now = clock.now();
      const next = apply(current, changes, now);
      checkPeppolEndpoint(next);
      await updateEntity(tx, tenantId, next, changes.logo);
      if (input.is_default === true && !current.is_default) await makeDefault(tx, tenantId, entityId, now);
      await refreshDrafts(tx, tenantId, entityId);
      return (await findEntity(tx, tenantId, entityId))!;
    });
  }

  /**
   * Archives an entity: it keeps its invoices and sequences but takes no customers. Refused
   * (409) for the default entity and for an entity with customers that are not archived.
   * Archiving an archived entity changes nothing.
   */
  async function archive(tenantId: string, entityId: string): Promise<InvoicingEntityRow> {
    return withTx(pool, async (tx) => {
      const current = await locked(tx, tenantId, entityId);
      if (current.archived_at) return current;
      if (current.is_default) {
        throw conflict(`invoicing entity ${entityId} is the default entity; make another entity the default (PATCH it with is_default true) before archiving this one`);
      }
      const customers = await countActiveCustomersOfEntity(tx, tenantId, entityId);
      if (customers > 0) {
        throw conflict(
          `invoicing entity ${entityId} has ${customers} customer(s) that are not archived; move them to another entity ` +
          `(PATCH /api/v1/customers/{id_or_alias} with invoicing_entity_id) or archive them first`,
        );
      }
      const now = clock.now();
      await updateEntity(tx, tenantId, { ...current, archived_at: now, updated_at: now });
      return { ...current, archived_at: now, updated_at: now };
    });
  }

  /** Makes an archived entity usable again; an entity that is not archived is answered as it is. */
  async function unarchive(tenantId: string, entityId: string): Promise<InvoicingEntityRow> {
    return withTx(pool, async (tx) => {
      const current = await locked(tx, tenantId, entityId);
      if (!current.archived_at) return current;
      const now = clock.now();
      await updateEntity(tx, tenantId, { ...current, archived_at: null, updated_at: now });
      return { ...current, archived_at: null, updated_at: now };
    });
  }

  return { list, get, create, update, archive, unarchive };
}

export type InvoicingEntitiesService = ReturnType<typeof createInvoicingEntitiesService>;
