import { Type, type Static } from 'typebox';
import { iso, isoOrNull, Nullable, Name } from '../../http/schemas.js';
import { formatMinor } from '../../kernel/money.js';
import { CustomPropertiesInput, CustomPropertiesOutput } from '../custom-properties/index.js';
import type { CustomerRow } from './repository.js';

const NullableString = (options: Record<string, unknown> = {}) => Type.Optional(Nullable(Type.String(options)));

export const Address = Type.Object({
  line1: NullableString(),
  line2: NullableString(),
  city: NullableString(),
  state: NullableString(),
  zip_code: NullableString(),
  country: Type.Optional(Nullable(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' }))),
}, { additionalProperties: false });

export const ShippingAddress = Type.Object({
  same_as_billing: Type.Boolean(),
  address: Type.Optional(Nullable(Address)),
}, { additionalProperties: false });

export const CustomTaxRate = Type.Object({
  name: Name(),
  rate: Type.String({ description: 'Fraction as a decimal string: "0.2" is 20 %' }),
  tax_code: Type.String({ minLength: 1 }),
}, { additionalProperties: false });

const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code' });

/** Fields shared by create, PUT and PATCH; required-ness differs per operation. */
const editable = {
  alias: NullableString({ minLength: 1, maxLength: 200 }),
  billing_email: NullableString(),
  phone: NullableString(),
  billing_address: Type.Optional(Nullable(Address)),
  shipping_address: Type.Optional(Nullable(ShippingAddress)),
  vat_number: NullableString(),
  is_tax_exempt: Type.Optional(Nullable(Type.Boolean())),
  reverse_charge: Type.Optional(Nullable(Type.Boolean({ description: 'EU B2B reverse charge; needs a vat_number' }))),
  invoicing_entity_id: NullableString({ description: 'The invoicing entity that issues its invoices (an active one); null or left out on create: the default entity', examples: ['ive_01KKRNW4G00DCDSVX0Q959VSN7'] }),
  custom_properties: Type.Optional(Nullable(CustomPropertiesInput)),
};

export const CustomerCreateRequest = Type.Object({
  name: Name(),
  currency: Currency,
  invoicing_emails: Type.Optional(Type.Array(Type.String())),
  custom_taxes: Type.Optional(Type.Array(CustomTaxRate)),
  connected_account_id: NullableString(),
  test_clock_id: NullableString({ description: 'Sandbox only: the test clock the customer and everything of it (subscriptions, invoices, usage) runs on; set at creation only (docs/test-clocks.md)', examples: ['clock_01KKRNW4G00DCDSVX0Q959VSN7'] }),
  ...editable,
}, { additionalProperties: false });

/** PUT replaces the customer: omitted optional fields become null/empty. */
export const CustomerUpdateRequest = Type.Object({
  name: Name(),
  currency: Currency,
  invoicing_emails: Type.Array(Type.String()),
  custom_taxes: Type.Array(CustomTaxRate),
  ...editable,
}, { additionalProperties: false });

/** PATCH changes only the fields present; null clears a nullable field. */
export const CustomerPatchRequest = Type.Object({
  name: Type.Optional(Nullable(Name())),
  currency: Type.Optional(Nullable(Currency)),
  invoicing_emails: Type.Optional(Type.Array(Type.String())),
  custom_taxes: Type.Optional(Type.Array(CustomTaxRate)),
  ...editable,
}, { additionalProperties: false });

export type CustomerCreateBody = Static<typeof CustomerCreateRequest>;
export type CustomerUpdateBody = Static<typeof CustomerUpdateRequest>;
export type CustomerPatchBody = Static<typeof CustomerPatchRequest>;

export const Customer = Type.Object({
  id: Type.String(),
  name: Type.String(),
  alias: Nullable(Type.String()),
  billing_email: Nullable(Type.String()),
  invoicing_emails: Type.Array(Type.String()),
  phone: Nullable(Type.String()),
  currency: Type.String(),
  billing_address: Nullable(Address),
  shipping_address: Nullable(ShippingAddress),
  vat_number: Nullable(Type.String()),
  is_tax_exempt: Type.Boolean(),
  reverse_charge: Type.Boolean(),
  custom_taxes: Type.Array(CustomTaxRate),
  custom_properties: CustomPropertiesOutput,
  invoicing_entity_id: Type.String({ description: 'The invoicing entity that issues its invoices (its seller, number sequence and tax country)' }),
  connected_account_id: Nullable(Type.String()),
  test_clock_id: Nullable(Type.String({ description: 'The test clock the customer runs on (sandbox only), null on the service clock' })),
  balance: Type.String({ description: 'Credit held by the customer, decimal string in its currency' }),
  created_at: Type.String({ format: 'date-time' }),
  archived_at: Nullable(Type.String({ format: 'date-time' })),
});

export function customerToWire(row: CustomerRow) {
  return {
    id: row.id,
    name: row.name,
    alias: row.alias,
    billing_email: row.billing_email,
    invoicing_emails: row.invoicing_emails,
    phone: row.phone,
    currency: row.currency,
    billing_address: row.billing_address,
    shipping_address: row.shipping_address,
    vat_number: row.vat_number,
    is_tax_exempt: row.is_tax_exempt,
    reverse_charge: row.reverse_charge,
    custom_taxes: row.custom_taxes,
    custom_properties: row.custom_properties,
    invoicing_entity_id: row.invoicing_entity_id,
    connected_account_id: row.connected_account_id,
    test_clock_id: row.test_clock_id,
    balance: formatMinor(row.balance_minor, row.currency),
    created_at: iso(row.created_at),
    archived_at: isoOrNull(row.archived_at),
  };
}
