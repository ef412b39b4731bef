// What a create or an update of an invoicing entity may set, checked and normalised into column
// values: every refusal is a 400 naming the field, with what is expected and an example.
import { createHash } from 'node:crypto';
import { badRequest } from '../../kernel/errors.js';
import { MAX_NET_TERMS_DAYS } from '../../http/schemas.js';
import { checkImage, ImageRejected } from '../../adapters/pdf/image.js';
import type { BankDetails, InvoicingEntityRow, LogoContentType } from './entities.js';
import { E_INVOICE_FORMATS, type EInvoiceFormat } from '../../adapters/einvoice/index.js';

/** Largest logo accepted, in bytes once decoded (the database checks it too). */
export const MAX_LOGO_BYTES = 256 * 1024;
export const MAX_GRACE_PERIOD_HOURS = 24 * 31;

export interface EntityInput {
  legal_name?: string;
  address_line1?: string | null;
  address_line2?: string | null;
  city?: string | null;
  zip_code?: string | null;
  state?: string | null;
  country?: string;
  vat_number?: string | null;
  tax_number?: string | null;
  registration_number?: string | null;
  legal_footer?: string | null;
  payment_instructions?: string | null;
  bank_details?: Partial<BankDetails> | null;
  invoice_number_prefix?: string;
  credit_note_number_prefix?: string;
  net_terms?: number;
  grace_period_hours?: number;
  e_invoicing_enabled?: boolean;
  e_invoicing_format?: string | null;
  contact_name?: string | null;
  contact_phone?: string | null;
  contact_email?: string | null;
  peppol_endpoint_scheme?: string | null;
  peppol_endpoint_id?: string | null;
  /** `data:image/png;base64,...` or `data:image/jpeg;base64,...`; null removes the logo. */
  logo?: string | null;
  is_default?: boolean;
}

/** The stored form of the logo (bytes, type, hash), or null for none. */
export interface LogoValue {
  content: Buffer;
  contentType: LogoContentType;
  sha256: string;
}

/** Entity columns as an input sets them; absent keys are left as they are. */
export type EntityChanges = Partial<Pick<InvoicingEntityRow,
  'legal_name' | 'address_line1' | 'address_line2' | 'city' | 'zip_code' | 'state' | 'country' | 'vat_number' | 'tax_number' |
  'registration_number' | 'legal_footer' | 'payment_instructions' | 'bank_details' | 'invoice_number_prefix' | 'credit_note_number_prefix' |
  'net_terms' | 'grace_period_hours' | 'e_invoicing_enabled' | 'e_invoicing_format' | 'contact_name' | 'contact_phone' | 'contact_email' |
  'peppol_endpoint_scheme' | 'peppol_endpoint_id'>> & { logo?: LogoValue | null };

const TEXT_FIELDS = [
  'address_line1', 'address_line2', 'city', 'zip_code', 'state', 'vat_number', 'tax_number', 'registration_number', 'legal_footer', 'payment_instructions',
  'contact_name',
] as const;

/**
 * Peppol EAS (Electronic Address Scheme) codes are 4 digits (0088 GLN, 0208 Belgian company number,
 * 9930 German VAT...) except EM (e-mail), which Peppol does not accept as a seller endpoint. We check
 * the shape only: the list grows, and the access point refuses a code it does not know.
 */
const EAS_CODE = /^[0-9]{4}$/;
/** A participant id within its scheme: no spaces, at most 50 characters (an ISO 6523 identifier). */
const ENDPOINT_ID = /^[^\s]{1,50}$/;
/** One @ with a dot in the domain: the shape of an address, not proof it is read. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** Digits, spaces and + ( ) - / . with at least 3 digits: telephone numbers as people write them. */
const PHONE = /^(?=(?:\D*\d){3})[0-9+()\-/. ]{3,50}$/;

/** Peppol endpoint id and scheme come together (the database checks it too): checked on the entity as it will be. */
export function checkPeppolEndpoint(row: Pick<InvoicingEntityRow, 'peppol_endpoint_scheme' | 'peppol_endpoint_id'>): void {
  if ((row.peppol_endpoint_scheme === null) !== (row.peppol_endpoint_id === null)) {
    throw badRequest(`peppol_endpoint_scheme and peppol_endpoint_id go together: set both or neither, e.g. {"peppol_endpoint_scheme": "0088", "peppol_endpoint_id": "4035811991021"}`);
  }
}

const BANK_FIELDS = ['account_holder', 'bank_name', 'iban', 'bic', 'account_number', 'routing_number'] as const;

/** A blank optional text is stored as null, so the PDF never prints an empty line for it. */
const text = (value: string | null): string | null => (value === null ? null : value.trim() || null);

/** ISO 13616: move the country and check digits to the end, letters to numbers, the whole modulo 97 is 1. */
export function validIban(iban: string): boolean {
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const digits = (iban.slice(4) + iban.slice(0, 4)).replace(/[A-Z]/g, (letter) => String(letter.charCodeAt(0) - 55));
  let rest = 0;
  for (const digit of digits) rest = (rest * 10 + Number(digit)) % 97;
  return rest === 1;
}

function bankDetails(input: Partial<BankDetails>): BankDetails {
  const out = Object.fromEntries(BANK_FIELDS.map((field) => [field, text(input[field] ?? null)])) as unknown as BankDetails;
  if (out.iban !== null) {
    out.iban = out.iban.replace(/\s+/g, '').toUpperCase();
    if (!validIban(out.iban)) throw badRequest(`bank_details.iban '${input.iban}' is not a valid IBAN (country, check digits, account; e.g. 'FR76 3000 6000 0112 3456 7890 189')`);
  }
  if (out.bic !== null) {
    out.bic = out.bic.replace(/\s+/g, '').toUpperCase();
    if (!/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(out.bic)) throw badRequest(`bank_details.bic '${input.bic}' must be a BIC of 8 or 11 letters and digits, e.g. 'AGRIFRPP'`);
  }
  if (out.iban === null && out.account_number === null) {
    throw badRequest('bank_details needs an iban or an account_number, e.g. {"account_holder": "Tally Billing SAS", "iban": "FR7630006000011234567890189"}');
  }
  return out;
}

async function logo(dataUrl: string): Promise<LogoValue> {
  const match = /^data:(image\/png|image\/jpeg);base64,([A-Za-z0-9+/\s]*={0,2})$/.exec(dataUrl);
  if (!match) throw badRequest("logo must be a data URL of a PNG or JPEG image, e.g. 'data:image/png;base64,iVBORw0KGgo...'");
  const base64 = match[2]!.replace(/\s+/g, '');
  const content = Buffer.from(base64, 'base64');
  if (content.toString('base64').replace(/=+$/, '') !== base64.replace(/=+$/, '')) throw badRequest('logo is not valid base64');
  if (content.length > MAX_LOGO_BYTES) throw badRequest(`logo must be at most ${MAX_LOGO_BYTES / 1024} KiB once decoded, got ${Math.ceil(content.length / 1024)} KiB`);
  let checked;
  try {
    checked = await checkImage(content);
  } catch (error) {
    if (error instanceof ImageRejected) throw badRequest(`logo: ${error.message}`);
    throw error;
  }
  if (checked.type !== match[1]) throw badRequest(`logo says ${match[1]} but holds a ${checked.type} image`);
  return { content, contentType: checked.type, sha256: createHash('sha256').update(content).digest('hex') };
}

/** Checks an input and turns it into column changes (trimmed texts, normalised bank details, decoded logo). */
export async function entityChanges(input: EntityInput): Promise<EntityChanges> {
  const out: EntityChanges = {};
  if (input.legal_name !== undefined) {
    if (!input.legal_name.trim()) throw badRequest("legal_name must not be empty, e.g. 'Tally Billing SAS'");
    out.legal_name = input.legal_name.trim();
  }
  if (input.country !== undefined) {
    if (!/^[A-Z]{2}$/.test(input.country)) throw badRequest(`country must be an ISO 3166-1 alpha-2 code in upper case, e.g. 'FR'; got '${input.country}'`);
    out.country = input.country;
  }
  for (const field of TEXT_FIELDS) {
    const value = input[field];
    if (value !== undefined) out[field] = text(value);
  }
  if (input.contact_email !== undefined) {
    const value = text(input.contact_email);
    if (value !== null && !EMAIL.test(value)) throw badRequest(`contact_email must be an e-mail address, e.g. 'billing@example.com'; got '${value}'`);
    out.contact_email = value;
  }
  if (input.contact_phone !== undefined) {
    const value = text(input.contact_phone);
    if (value !== null && !PHONE.test(value)) throw badRequest(`contact_phone must be a telephone number of digits, spaces and + ( ) - / . characters, e.g. '+49 30 1234567'; got '${value}'`);
    out.contact_phone = value;
  }
  if (input.peppol_endpoint_scheme !== undefined) {
    const value = text(input.peppol_endpoint_scheme);
    if (value !== null && !EAS_CODE.test(value)) throw badRequest(`peppol_endpoint_scheme must be a 4-digit Peppol EAS code, e.g. '0088' (GLN) or '9930' (German VAT); got '${value}'`);
    out.peppol_endpoint_scheme = value;
  }
  if (input.peppol_endpoint_id !== undefined) {
    const value = text(input.peppol_endpoint_id);
    if (value !== null && !ENDPOINT_ID.test(value)) throw badRequest(`peppol_endpoint_id must be at most 50 characters without spaces, e.g. '4035811991021' (a GLN) or 'DE123456789' (a VAT number); got '${value}'`);
    out.peppol_endpoint_id = value;
  }
  for (const field of ['invoice_number_prefix', 'credit_note_number_prefix'] as const) {
    const value = input[field];
    if (value === undefined) continue;
    if (!/^[A-Za-z0-9_\-/.]{0,20}$/.test(value)) throw badRequest(`${field} must be at most 20 letters, digits or - _ / . characters, e.g. 'INV-'`);
    out[field] = value;
  }
  if (input.net_terms !== undefined) {
    if (!Number.isInteger(input.net_terms) || input.net_terms < 0 || input.net_terms > MAX_NET_TERMS_DAYS) throw badRequest(`net_terms must be an integer between 0 and ${MAX_NET_TERMS_DAYS} (days), e.g. 30`);
    out.net_terms = input.net_terms;
  }
  if (input.grace_period_hours !== undefined) {
    if (!Number.isInteger(input.grace_period_hours) || input.grace_period_hours < 0 || input.grace_period_hours > MAX_GRACE_PERIOD_HOURS) {
      throw badRequest(`grace_period_hours must be an integer between 0 and ${MAX_GRACE_PERIOD_HOURS}, e.g. 24`);
    }
    out.grace_period_hours = input.grace_period_hours;
  }
  if (input.e_invoicing_enabled !== undefined) out.e_invoicing_enabled = input.e_invoicing_enabled;
  if (input.e_invoicing_format !== undefined) {
    const format = input.e_invoicing_format;
    if (format !== null && !E_INVOICE_FORMATS.includes(format as EInvoiceFormat)) {
      throw badRequest(`e_invoicing_format must be one of ${E_INVOICE_FORMATS.join(', ')} or null, e.g. 'FACTURX'; got '${format}'`);
    }
    // the format is the opt-in: naming one switches e-invoicing on, null switches it off
    if (input.e_invoicing_enabled !== undefined && input.e_invoicing_enabled !== (format !== null)) {
      throw badRequest(`e_invoicing_enabled ${String(input.e_invoicing_enabled)} contradicts e_invoicing_format ${format === null ? 'null' : `'${format}'`}; send only e_invoicing_format, e.g. {"e_invoicing_format": "FACTURX"}`);
    }
    out.e_invoicing_format = format as EInvoiceFormat | null;
    out.e_invoicing_enabled = format !== null;
  }
  if (input.bank_details !== undefined) out.bank_details = input.bank_details === null ? null : bankDetails(input.bank_details);
  if (input.logo !== undefined) out.logo = input.logo === null ? null : await logo(input.logo);
  return out;
}
