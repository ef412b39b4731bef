import { AppError, badRequest } from '../../kernel/errors.js';
import type { CsvItem } from './csv.js';
import type { ChunkOutcome } from './event-import.js';
import type { CreateCustomer, ImportAddress, ImportCustomer } from './ports.js';
import type { ItemFailure } from './repository.js';

/** Rows per chunk of a customer import: each row is its own transaction. */
export const CUSTOMER_CHUNK_SIZE = 50;
const ADDRESS_FIELDS = ['line1', 'line2', 'city', 'state', 'zip_code', 'country'] as const;
const COLUMNS = new Set([
  'name',
  'alias',
  'billing_email',
  'invoicing_emails',
  'phone',
  'currency',
  'vat_number',
  'is_tax_exempt',
  ...ADDRESS_FIELDS.map((f) => `billing_address.${f}`),
]);

/** Unknown columns are refused rather than dropped, so no data is silently left behind. */
export function checkCustomerHeader(header: readonly string[]): void {
  for (const required of ['name', 'currency']) if (!header.includes(required)) throw badRequest(`csv header must have a '${required}' column`);
  const unknown = header.filter((name) => !COLUMNS.has(name));
  if (unknown.length > 0) throw badRequest(`csv header has unsupported columns ${unknown.map((c) => `'${c}'`).join(', ')}; supported: ${[...COLUMNS].join(', ')}`);
}

export function customerIdentifierOf(item: CsvItem): string | null {
  if (!('values' in item)) return null;
  return item.values.alias || item.values.name || null;
}

/**
 * The create body of a row, with the checks the API's body schema makes (types and patterns);
 * the customers service then applies the same rules as POST /api/v1/customers.
 */
export function customerFromRow(values: Record<string, string>): ImportCustomer {
  const blankToNull = (value: string | undefined) => (value ? value : null);
  if (!values.name) throw badRequest('name is empty');
  const currency = values.currency ?? '';
  if (!/^[A-Z]{3}$/.test(currency)) throw badRequest(`currency '${currency}' must be a 3-letter ISO 4217 code such as EUR`);
  if (values.alias && values.alias.length > 200) throw badRequest('alias must be at most 200 characters');
  let isTaxExempt = false;
  const exempt = (values.is_tax_exempt ?? '').toLowerCase();
  if (exempt === 'true') isTaxExempt = true;
  else if (exempt !== '' && exempt !== 'false') throw badRequest(`is_tax_exempt '${values.is_tax_exempt}' must be true or false`);
  const address: ImportAddress = {};
  for (const field of ADDRESS_FIELDS) {
    const value = values[`billing_address.${field}`];
    if (value) address[field] = value;
  }
  if (address.country !== undefined && !/^[A-Z]{2}$/.test(address.country ?? '')) {
    throw badRequest(`billing_address.country '${address.country}' must be an ISO 3166-1 alpha-2 code such as FR`);
  }
  return {
    name: values.name,
    currency,
    alias: blankToNull(values.alias),
    billing_email: blankToNull(values.billing_email),
    // Several addresses in one cell are separated by ';' (a comma is the usual delimiter).
    invoicing_emails: (values.invoicing_emails ?? '').split(';').map((e) => e.trim()).filter((e) => e !== ''),
    phone: blankToNull(values.phone),
    vat_number: blankToNull(values.vat_number),
    is_tax_exempt: isTaxExempt,
    billing_address: Object.keys(address).length > 0 ? address : null,
  };
}

/**
 * Creates one customer per row, each through the customers service. A rejected row (invalid
 * field, alias already used) is a per-item failure; rows created by an earlier attempt of the
 * chunk (`alreadyCreated`) are counted, not created again. Other errors propagate so the chunk
 * is retried.
 */
export async function importCustomerChunk(
  create: CreateCustomer,
  tenantId: string,
  chunk: { firstItemIndex: number; items: readonly CsvItem[] },
  alreadyCreated: ReadonlyMap<number, string>,
  recordCreated: (itemIndex: number, customerId: string) => Promise<void>,
): Promise<ChunkOutcome> {
  const failures: ItemFailure[] = [];
  let processed = 0;
  for (const [offset, item] of chunk.items.entries()) {
    const itemIndex = chunk.firstItemIndex + offset;
    if (alreadyCreated.has(itemIndex)) {
      processed += 1;
      continue;
    }
    const identifier = customerIdentifierOf(item);
    if ('error' in item) {
      failures.push({ itemIndex, identifier, reason: item.error });
      continue;
    }
    try {
      const customer = await create(tenantId, customerFromRow(item.values));
      await recordCreated(itemIndex, customer.id);
      processed += 1;
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      failures.push({ itemIndex, identifier, reason: error.message });
    }
  }
  return { status: 'COMPLETED', processed, failed: failures.length, failures };
}
