// Invoicing entities as stored: the sellers of a tenant's invoices, their number sequences, and
// the reads other code needs (the use cases are in entities-service.ts).
import type { Clock } from '../../kernel/clock.js';
import { badRequest, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import { findTenantProfile } from '../accounts/index.js';
import type { EInvoiceFormat } from '../../adapters/einvoice/index.js';

/** Where to pay by bank transfer; every field optional, at least an IBAN or an account number. */
export interface BankDetails {
  account_holder: string | null;
  bank_name: string | null;
  /** Without spaces, checked with its mod-97 checksum. */
  iban: string | null;
  bic: string | null;
  account_number: string | null;
  routing_number: string | null;
}

export type LogoContentType = 'image/png' | 'image/jpeg';

/** The seller on a tenant's invoices: legal identity, numbering, invoicing defaults, what its PDFs print. */
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
  /** A tax id that is not a VAT number (EIN, ABN, GST...). */
  tax_number: string | null;
  /** Company registry number (SIREN, Companies House number, HRB...). */
  registration_number: string | null;
  /** Legal mentions printed at the foot of every PDF (share capital, registry court, penalties). */
  legal_footer: string | null;
  payment_instructions: string | null;
  bank_details: BankDetails | null;
  invoice_number_prefix: string;
  credit_note_number_prefix: string;
  next_invoice_number: bigint;
  next_credit_note_number: bigint;
  net_terms: number;
  grace_period_hours: number;
  e_invoicing_enabled: boolean;
  /** The structured e-invoice format the entity opted into (docs/einvoicing.md); null exactly when e_invoicing_enabled is false. */
  e_invoicing_format: EInvoiceFormat | null;
  /** Seller contact printed in e-invoices (BG-6: BT-41, BT-42, BT-43); XRechnung requires all three. */
  contact_name: string | null;
  contact_phone: string | null;
  contact_email: string | null;
  /** The seller's Peppol participant id (BT-34) and its EAS scheme, e.g. '0088' (GLN); both or neither. */
  peppol_endpoint_scheme: string | null;
  peppol_endpoint_id: string | null;
  /** The logo's bytes are read only to render (findEntityLogo); these describe them. */
  logo_content_type: LogoContentType | null;
  logo_sha256: string | null;
  logo_size_bytes: number | null;
  created_at: Date;
  updated_at: Date;
  archived_at: Date | null;
}

export const ENTITY_COLUMNS = `id, is_default, legal_name, address_line1, address_line2, city, zip_code, state, country, vat_number,
  tax_number, registration_number, legal_footer, payment_instructions, bank_details,
  invoice_number_prefix, credit_note_number_prefix, next_invoice_number, next_credit_note_number, net_terms,
  grace_period_hours, e_invoicing_enabled, e_invoicing_format, contact_name, contact_phone, contact_email, peppol_endpoint_scheme, peppol_endpoint_id,
  logo_content_type, logo_sha256, octet_length(logo) AS logo_size_bytes,
  created_at, updated_at, archived_at`;

/**
 * Country of a tenant's first entity until the merchant sets theirs. `US` is chosen because no
 * standard rate is configured for it, so nothing is taxed before the merchant says where they sell from.
 */
export const DEFAULT_ENTITY_COUNTRY = 'US';

/** `lock`: 'update' holds the row until commit (numbering, changes); 'share' only keeps it from changing (a customer joining it). */
export async function findEntity(db: Queryable, tenantId: string, entityId: string, lock: boolean | 'update' | 'share' = false): Promise<InvoicingEntityRow | undefined> {
  const clause = lock === 'share' ? ' FOR SHARE' : lock ? ' FOR UPDATE' : '';
  return scoped(db, tenantId).one<InvoicingEntityRow>(`SELECT ${ENTITY_COLUMNS} FROM invoicing_entities WHERE tenant_id = $1 AND id = $2${clause}`, [entityId]);
}

/** Several entities by id in one statement; missing ids are left out. */
export async function findEntities(db: Queryable, tenantId: string, ids: readonly string[]): Promise<Map<string, InvoicingEntityRow>> {
  const rows = await scoped(db, tenantId).query<InvoicingEntityRow>(`SELECT ${ENTITY_COLUMNS} FROM invoicing_entities WHERE tenant_id = $1 AND id = ANY($2::text[])`, [[...new Set(ids)]]);
  return new Map(rows.map((row) => [row.id, row]));
}

/** The logo's bytes, for rendering; undefined when the entity has none. */
export async function findEntityLogo(db: Queryable, tenantId: string, entityId: string): Promise<{ content: Buffer; contentType: LogoContentType; sha256: string } | undefined> {
  const row = await scoped(db, tenantId).one<{ logo: Buffer; logo_content_type: LogoContentType; logo_sha256: string }>(
    `SELECT logo, logo_content_type, logo_sha256 FROM invoicing_entities WHERE tenant_id = $1 AND id = $2 AND logo IS NOT NULL`,
    [entityId],
  );
  return row ? { content: row.logo, contentType: row.logo_content_type, sha256: row.logo_sha256 } : undefined;
}

/**
 * The tenant's default entity, created on first use with the organization's name. Concurrent first
 * uses race on the partial unique index; the loser reads the winner's row.
 */
export async function ensureDefaultEntity(db: Queryable, tenantId: string, clock: Clock): Promise<InvoicingEntityRow> {
  const s = scoped(db, tenantId);
  const existing = await s.one<InvoicingEntityRow>(`SELECT ${ENTITY_COLUMNS} FROM invoicing_entities WHERE tenant_id = $1 AND is_default`);
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
  const row = await s.one<InvoicingEntityRow>(`SELECT ${ENTITY_COLUMNS} FROM invoicing_entities WHERE tenant_id = $1 AND is_default`);
  if (!row) throw notFound('tenant');
  return row;
}

/**
 * The entity a customer is put on, in the caller's transaction: the one named (it must be an
 * active entity of the tenant, held FOR SHARE so it cannot be archived before the caller
 * commits), or the tenant's default when none is named (the entity lock held shared, so the
 * default cannot be switched before the caller commits). The customers module calls this through
 * the composition root (customers come before invoices).
 */
export async function entityForCustomer(db: Queryable, tenantId: string, clock: Clock, requested: string | null, field = 'invoicing_entity_id'): Promise<string> {
  if (requested === null) {
    // The entity lock, shared: a switch of the default or an archive in progress (which hold it
    // exclusively) is waited out, and none starts before the caller commits, so the default read
    // next stays the default. Customers created at once share it and do not wait for each other.
    await lockTenantEntities(db, tenantId, 'shared');
    return (await ensureDefaultEntity(db, tenantId, clock)).id;
  }
  const entity = await findEntity(db, tenantId, requested, 'share');
  if (!entity) throw badRequest(`${field} '${requested}' is not an invoicing entity of this tenant (GET /api/v1/invoicing-entities lists them, e.g. 'ive_01KKRNW4G00DCDSVX0Q959VSN7')`);
  if (entity.archived_at) throw badRequest(`${field} '${requested}' is archived and cannot take customers; unarchive it or choose an active entity`);
  return entity.id;
}

/** The tenant's entities, the default first, then by creation; archived ones only when asked. */
export async function listEntities(db: Queryable, tenantId: string, includeArchived: boolean): Promise<InvoicingEntityRow[]> {
  return scoped(db, tenantId).query<InvoicingEntityRow>(
    `SELECT ${ENTITY_COLUMNS} FROM invoicing_entities WHERE tenant_id = $1 AND ($2 OR archived_at IS NULL) ORDER BY is_default DESC, id`,
    [includeArchived],
  );
}

/**
 * Serialises the writes that change which entity is the default or archived, per tenant, for the
 * caller's transaction: two switches of the default at once would otherwise both clear the old
 * default and collide on the one-default index.
 */
export async function lockTenantEntities(db: Queryable, tenantId: string, mode: 'exclusive' | 'shared' = 'exclusive'): Promise<void> {
  const lock = mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
  await scoped(db, tenantId).query(`SELECT ${lock}(hashtextextended('invoicing-entities:' || $1, 0)) WHERE $1::text IS NOT NULL /* tenant_id */`);
}

/** The editable columns of an entity, in the order of the INSERT and UPDATE below ($3...). */
function editableValues(row: InvoicingEntityRow): unknown[] {
  return [row.legal_name, row.address_line1, row.address_line2, row.city, row.zip_code, row.state, row.country, row.vat_number, row.tax_number,
    row.registration_number, row.legal_footer, row.payment_instructions, row.bank_details === null ? null : JSON.stringify(row.bank_details),
    row.invoice_number_prefix, row.credit_note_number_prefix, row.net_terms, row.grace_period_hours, row.e_invoicing_enabled, row.updated_at, row.archived_at,
    row.e_invoicing_format, row.contact_name, row.contact_phone, row.contact_email, row.peppol_endpoint_scheme, row.peppol_endpoint_id];
}

/** A new entity, never the default (makeDefault switches it), counters at 1. */
export async function insertEntity(db: Queryable, tenantId: string, row: InvoicingEntityRow, logo: { content: Buffer; contentType: string; sha256: string } | null): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO invoicing_entities (tenant_id, id, is_default, legal_name, address_line1, address_line2, city, zip_code, state, country, vat_number, tax_number,
       registration_number, legal_footer, payment_instructions, bank_details, invoice_number_prefix, credit_note_number_prefix, net_terms, grace_period_hours,
       e_invoicing_enabled, updated_at, archived_at, e_invoicing_format, contact_name, contact_phone, contact_email, peppol_endpoint_scheme, peppol_endpoint_id,
       created_at, logo, logo_content_type, logo_sha256)
     VALUES ($1, $2, false, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32)`,
    [row.id, ...editableValues(row), row.created_at, logo?.content ?? null, logo?.contentType ?? null, logo?.sha256 ?? null],
  );
}

/** Writes the editable columns back; `logo` undefined leaves the logo as it is, null removes it. Counters are never written here. */
export async function updateEntity(db: Queryable, tenantId: string, row: InvoicingEntityRow, logo?: { content: Buffer; contentType: string; sha256: string } | null): Promise<void> {
  const setLogo = logo === undefined ? '' : ', logo = $29, logo_content_type = $30, logo_sha256 = $31';
  await scoped(db, tenantId).query(
    `UPDATE invoicing_entities SET legal_name = $3, address_line1 = $4, address_line2 = $5, city = $6, zip_code = $7, state = $8, country = $9,
       vat_number = $10, tax_number = $11, registration_number = $12, legal_footer = $13, payment_instructions = $14, bank_details = $15,
       invoice_number_prefix = $16, credit_note_number_prefix = $17, net_terms = $18, grace_period_hours = $19, e_invoicing_enabled = $20,
       updated_at = $21, archived_at = $22, e_invoicing_format = $23, contact_name = $24, contact_phone = $25, contact_email = $26,
       peppol_endpoint_scheme = $27, peppol_endpoint_id = $28${setLogo}
     WHERE tenant_id = $1 AND id = $2`,
    [row.id, ...editableValues(row), ...(logo === undefined ? [] : [logo?.content ?? null, logo?.contentType ?? null, logo?.sha256 ?? null])],
  );
}

/** Makes this entity the tenant's one default, in two statements (the one-default index is checked per row). */
export async function makeDefault(db: Queryable, tenantId: string, entityId: string, at: Date): Promise<void> {
  const s = scoped(db, tenantId);
  await s.query(`UPDATE invoicing_entities SET is_default = false, updated_at = $3 WHERE tenant_id = $1 AND is_default AND id <> $2`, [entityId, at]);
  await s.query(`UPDATE invoicing_entities SET is_default = true, updated_at = $3 WHERE tenant_id = $1 AND id = $2`, [entityId, at]);
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

/**
 * What an invoice shows of its seller: copied when the draft is created, copied again by every
 * refresh of the draft (the entity as it is now), frozen at finalization. The logo is named by
 * its hash: the PDF prints the entity's logo only while it is still that one.
 */
export function sellerDetails(entity: InvoicingEntityRow): Record<string, unknown> {
  return {
    id: entity.id,
    legal_name: entity.legal_name,
    vat_number: entity.vat_number,
    tax_number: entity.tax_number,
    registration_number: entity.registration_number,
    address: {
      line1: entity.address_line1,
      line2: entity.address_line2,
      city: entity.city,
      zip_code: entity.zip_code,
      state: entity.state,
      country: entity.country,
    },
    legal_footer: entity.legal_footer,
    payment_instructions: entity.payment_instructions,
    bank_details: entity.bank_details,
    logo_sha256: entity.logo_sha256,
    contact: { name: entity.contact_name, phone: entity.contact_phone, email: entity.contact_email },
    peppol_endpoint: entity.peppol_endpoint_id === null ? null : { scheme: entity.peppol_endpoint_scheme, id: entity.peppol_endpoint_id },
  };
}

export type DocumentKind = 'invoice' | 'credit_note';

const SEQUENCES: Record<DocumentKind, { counter: string; prefix: string }> = {
  invoice: { counter: 'next_invoice_number', prefix: 'invoice_number_prefix' },
  credit_note: { counter: 'next_credit_note_number', prefix: 'credit_note_number_prefix' },
};

/**
 * Takes the next `count` numbers of the entity's invoice or credit-note sequence, formatted
 * (`INV-0001`), in the caller's transaction: the only writer of the counters. Each entity has
 * its own sequences. The update holds
 * the entity row until commit, so concurrent finalizations queue instead of sharing a number and
 * a rollback gives the numbers back; sequences stay gapless. A caller that also locks customers
 * (balances, grants) locks the entity first (`findEntity(..., true)`), so every finalizer takes
 * those locks in one order.
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
