import { Type } from 'typebox';
import { iso, isoOrNull, Nullable, Name } from '../../http/schemas.js';
import { FEE_TYPES } from './fees.js';
import { CustomPropertiesInput, CustomPropertiesOutput } from '../custom-properties/index.js';
import type { ProductFamilyRow, ProductRow } from './repository.js';

export const ProductFamily = Type.Object({ id: Type.String(), name: Type.String() });

export const ProductFamilyCreateRequest = Type.Object({
  name: Name(),
  alias: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
});

/** Structural part of a fee, tagged by `type`; per-type fields are checked in fees.ts. */
export const ProductFeeStructure = Type.Object(
  {
    type: Type.Enum(FEE_TYPES),
    slot_unit_name: Type.Optional(Type.String()),
    upgrade_policy: Type.Optional(Type.Literal('PRORATED')),
    downgrade_policy: Type.Optional(Type.Literal('REMOVE_AT_END_OF_PERIOD')),
    metric_id: Type.Optional(Type.String()),
    model: Type.Optional(Type.String()),
    billing_type: Type.Optional(Type.String()),
  },
  { description: 'RATE {}, SLOT {slot_unit_name, upgrade_policy, downgrade_policy}, CAPACITY {metric_id}, USAGE {metric_id, model}, EXTRA_RECURRING {billing_type}, ONE_TIME {}' },
);

export const Product = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Optional(Nullable(Type.String())),
  product_family_id: Type.String(),
  catalog: Type.Boolean(),
  fee_type: Type.Enum(FEE_TYPES),
  fee_structure: ProductFeeStructure,
  custom_properties: CustomPropertiesOutput,
  created_at: Type.String({ format: 'date-time' }),
  archived_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
});

export const CreateProductRequest = Type.Object({
  name: Name(),
  description: Type.Optional(Nullable(Type.String())),
  product_family_id: Type.String(),
  catalog: Type.Optional(Type.Boolean()),
  fee_structure: ProductFeeStructure,
  custom_properties: Type.Optional(Nullable(CustomPropertiesInput)),
});

export const UpdateProductRequest = Type.Object({
  name: Type.Optional(Nullable(Name())),
  description: Type.Optional(Nullable(Type.String())),
  fee_structure: Type.Optional(Nullable(ProductFeeStructure)),
  custom_properties: Type.Optional(Nullable(CustomPropertiesInput)),
});

export function familyToWire(row: ProductFamilyRow) {
  return { id: row.id, name: row.name };
}

export function productToWire(row: ProductRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    product_family_id: row.product_family_id,
    catalog: row.catalog,
    fee_type: row.fee_type,
    fee_structure: row.fee_structure,
    custom_properties: row.custom_properties,
    created_at: iso(row.created_at),
    archived_at: isoOrNull(row.archived_at),
  };
}
