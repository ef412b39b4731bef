import type { Clock } from '../../kernel/clock.js';
import { badRequest, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import type { Pool, Queryable } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { scoped } from '../../db/tenant-scope.js';
import { MAX_NET_TERMS_DAYS } from '../../http/schemas.js';
import { findTenantProfile } from '../accounts/index.js';

/** The seller on a tenant's invoices: legal identity, numbering and invoicing defaults. */
export interface InvoicingEntityRow {
  id: string;
  is_default: boolean;
  legal_name: string;
  address_line1: string | null;
  address_line2: string | null;
  city: string | null;
  zip_code: string | null;
  state: string | null;
  country: string;
  vat_number: string | null;
  invoice_number_prefix: string;
  credit_note_number_prefix: string;
  next_invoice_number: bigint;
  next_credit_note_number: bigint;
  net_terms: number;
  grace_period_hours: number;
  e_invoicing_enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, is_default, legal_name, address_line1, address_line2, city, zip_code, state, country, vat_number,
  invoice_number_prefix, credit_note_number_prefix, next_invoice_number, next_credit_note_number, net_terms,
  grace_period_hours, e_invoicing_enabled, created_at, updated_at`;

/**
 * Country of a tenant's first entity until the merchant sets theirs. `US` is chosen because no
 * standard rate is configured for it, so nothing is taxed before the merchant says where they sell from.
 */
export const DEFAULT_ENTITY_COUNTRY = 'US';

export interface UpdateInvoicingEntityInput {
  legal_name?: string;
  address_line1?: string | null;
  address_line2?: string | null;
  city?: string | null;
  zip_code?: string | null;
  state?: string | null;
  country?: string;
  vat_number?: string | null;
  invoice_number_prefix?: string;
  credit_note_number_prefix?: string;
  net_terms?: number;
  grace_period_hours?: number;
  e_invoicing_enabled?: boolean;
}

export async function findEntity(db: Queryable, tenantId: string, entityId: string, lock = false): Promise<InvoicingEntityRow | undefined> {
  return scoped(db, tenantId).one<InvoicingEntityRow>(
    `SELECT ${COLUMNS} FROM invoicing_entities WHERE tenant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [entityId],
  );
}

/**
 * The tenant's default entity, created on first use with the organization's name. Concurrent first
 * uses race on the partial unique index; the loser reads the winner's row.
 */
export async function ensureDefaultEntity(db: Queryable, tenantId: string, clock: Clock): Promise<InvoicingEntityRow> {
  const s = scoped(db, tenantId);
  const existing = await s.one<InvoicingEntityRow>(`SELECT ${COLUMNS} FROM invoicing_entities WHERE tenant_id = $1 AND is_default`);
  if (existing) return existing;
  const tenant = await findTenantProfile(db, tenantId);
  if (!tenant) throw notFound('tenant');
  const now = clock.now();
  await s.query(
    `INSERT INTO invoicing_entities (tenant_id, id, is_default, legal_name, country, created_at, updated_at)
     VALUES ($1, $2, true, $3, $4, $5, $5)
     ON CONFLICT (tenant_id) WHERE is_default DO NOTHING`,
    [newId('invoicingEntity', now.getTime()), tenant.organization_name, DEFAULT_ENTITY_COUNTRY, now],
  );
  const row = await s.one<InvoicingEntityRow>(`SELECT ${COLUMNS} FROM invoicing_entities WHERE tenant_id = $1 AND is_default`);
  if (!row) throw notFound('tenant');
  return row;
}

/** The seller identity a freshly onboarded tenant gives before its first invoice. */
export interface DefaultEntityDetails {
  legal_name: string;
  address_line1: string;
  address_line2: string | null;
  city: string;
  zip_code: string;
  country: string;
  vat_number: string | null;
}

/** Creates the tenant's default entity from the details given at onboarding (express accounts). */
export async function insertDefaultEntity(db: Queryable, tenantId: string, entity: { id: string; details: DefaultEntityDetails; at: Date }): Promise<void> {
  const d = entity.details;
  await scoped(db, tenantId).query(
    `INSERT INTO invoicing_entities (tenant_id, id, is_default, legal_name, address_line1, address_line2, city, zip_code, country, vat_number, created_at, updated_at)
     VALUES ($1, $2, true, $3, $4, $5, $6, $7, $8, $9, $10, $10)`,
    [entity.id, d.legal_name, d.address_line1, d.address_line2, d.city, d.zip_code, d.country, d.vat_number, entity.at],
  );
}

const TEXT_FIELDS = ['legal_name', 'address_line1', 'address_line2', 'city', 'zip_code', 'state', 'vat_number'] as const;

function validate(input: UpdateInvoicingEntityInput): void {
  if (input.legal_name !== undefined && !input.legal_name.trim()) throw badRequest('legal_name must not be empty');
  if (input.country !== undefined && !/^[A-Z]{2}$/.test(input.country)) {
    throw badRequest(`country must be an ISO 3166-1 alpha-2 code in upper case, got '${input.country}'`);
  }
  for (const field of ['invoice_number_prefix', 'credit_note_number_prefix'] as const) {
    const value = input[field];
    if (value !== undefined && !/^[A-Za-z0-9_\-/.]{0,20}$/.test(value)) {
      throw badRequest(`${field} must be at most 20 letters, digits or - _ / . characters`);
    }
  }
  if (input.net_terms !== undefined && (!Number.isInteger(input.net_terms) || input.net_terms < 0 || input.net_terms > MAX_NET_TERMS_DAYS)) {
    throw badRequest(`net_terms must be an integer between 0 and ${MAX_NET_TERMS_DAYS} (days)`);
  }
  if (input.grace_period_hours !== undefined && (!Number.isInteger(input.grace_period_hours) || input.grace_period_hours < 0 || input.grace_period_hours > 24 * 31)) {
    throw badRequest('grace_period_hours must be an integer between 0 and 744');
  }
}

export function createInvoicingEntitiesService(deps: { pool: Pool; clock: Clock }) {
  const { pool, clock } = deps;

  async function list(tenantId: string): Promise<InvoicingEntityRow[]> {
    await ensureDefaultEntity(pool, tenantId, clock);
    return scoped(pool, tenantId).query<InvoicingEntityRow>(
      `SELECT ${COLUMNS} FROM invoicing_entities WHERE tenant_id = $1 ORDER BY is_default DESC, id`,
    );
  }

  async function get(tenantId: string, entityId: string): Promise<InvoicingEntityRow> {
    const row = await findEntity(pool, tenantId, entityId);
    if (!row) throw notFound('invoicing entity');
    return row;
  }

  /** Partial update; counters are never settable (numbers stay gapless). */
  async function update(tenantId: string, entityId: string, input: UpdateInvoicingEntityInput): Promise<InvoicingEntityRow> {
    validate(input);
    return withTx(pool, async (tx) => {
      const current = await findEntity(tx, tenantId, entityId, true);
      if (!current) throw notFound('invoicing entity');
      const next: InvoicingEntityRow = { ...current, updated_at: clock.now() };
      for (const field of TEXT_FIELDS) {
        const value = input[field];
        if (value !== undefined) (next as unknown as Record<string, unknown>)[field] = value === null ? null : value.trim() || null;
      }
      if (input.legal_name !== undefined) next.legal_name = input.legal_name.trim();
      if (input.country !== undefined) next.country = input.country;
      if (input.invoice_number_prefix !== undefined) next.invoice_number_prefix = input.invoice_number_prefix;
      if (input.credit_note_number_prefix !== undefined) next.credit_note_number_prefix = input.credit_note_number_prefix;
      if (input.net_terms !== undefined) next.net_terms = input.net_terms;
      if (input.grace_period_hours !== undefined) next.grace_period_hours = input.grace_period_hours;
      if (input.e_invoicing_enabled !== undefined) next.e_invoicing_enabled = input.e_invoicing_enabled;
      await scoped(tx, tenantId).query(
        `UPDATE invoicing_entities SET legal_name = $3, address_line1 = $4, address_line2 = $5, city = $6, zip_code = $7,
           state = $8, country = $9, vat_number = $10, invoice_number_prefix = $11, credit_note_number_prefix = $12,
           net_terms = $13, grace_period_hours = $14, e_invoicing_enabled = $15, updated_at = $16
         WHERE tenant_id = $1 AND id = $2`,
        [entityId, next.legal_name, next.address_line1, next.address_line2, next.city, next.zip_code, next.state, next.country,
          next.vat_number, next.invoice_number_prefix, next.credit_note_number_prefix, next.net_terms, next.grace_period_hours,
          next.e_invoicing_enabled, next.updated_at],
      );
      return next;
    });
  }

  return { list, get, update, ensureDefault: (db: Queryable, tenantId: string) => ensureDefaultEntity(db, tenantId, clock) };
}

export type InvoicingEntitiesService = ReturnType<typeof createInvoicingEntitiesService>;

/** What invoices and credit notes copy of their seller at creation. */
export function sellerDetails(entity: InvoicingEntityRow): Record<string, unknown> {
  return {
    id: entity.id,
    legal_name: entity.legal_name,
    vat_number: entity.vat_number,
    address: {
      line1: entity.address_line1,
      line2: entity.address_line2,
      city: entity.city,
      zip_code: entity.zip_code,
      state: entity.state,
      country: entity.country,
    },
  };
}

export type DocumentKind = 'invoice' | 'credit_note';

const SEQUENCES: Record<DocumentKind, { counter: string; prefix: string }> = {
  invoice: { counter: 'next_invoice_number', prefix: 'invoice_number_prefix' },
  credit_note: { counter: 'next_credit_note_number', prefix: 'credit_note_number_prefix' },
};

/**
 * Takes the next `count` numbers of the entity's invoice or credit-note sequence, formatted
 * (`INV-0001`), in the caller's transaction: the only writer of the counters. The update holds
 * the entity row until commit, so concurrent finalizations queue instead of sharing a number and
 * a rollback gives the numbers back; sequences stay gapless. A caller that also locks other rows
 * locks the entity first (`findEntity(..., true)`), so every finalizer takes locks in one order.
 */
export async function takeDocumentNumbers(db: Queryable, tenantId: string, entityId: string, kind: DocumentKind, count = 1): Promise<string[]> {
  const { counter, prefix } = SEQUENCES[kind];
  const row = await scoped(db, tenantId).one<{ first: bigint; prefix: string }>(
    `UPDATE invoicing_entities SET ${counter} = ${counter} + $3 WHERE tenant_id = $1 AND id = $2 RETURNING ${counter} - $3 AS first, ${prefix} AS prefix`,
    [entityId, count],
  );
  if (!row) throw notFound('invoicing entity');
  return Array.from({ length: count }, (_, index) => formatDocumentNumber(row.prefix, row.first + BigInt(index)));
}

/** `INV-0001`: prefix then the counter padded to 4 digits (longer numbers keep all their digits). */
export function formatDocumentNumber(prefix: string, counter: bigint, width = 4): string {
  return `${prefix}${counter.toString().padStart(width, '0')}`;
}
