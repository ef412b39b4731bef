import { Type } from 'typebox';
import { Nullable, Name } from '../../http/schemas.js';
import { FEE_TYPES } from '../catalog/index.js';
import { entitlementToWire, EntitlementInputSchema, EntitlementWireSchema, FeeSchema } from '../plans/index.js';
import type { AddOnView } from './service.js';

const PriceInput = Type.Object(
  { currency: Type.String({ minLength: 3, maxLength: 3 }), fee: FeeSchema },
  { description: 'Creates the add-on\'s price for its product: a fee in the plan-component shape, in `currency`.' },
);

export const CreateAddOnRequest = Type.Object({
  name: Name(),
  product_id: Type.String(),
  price_id: Type.Optional(Nullable(Type.String({ description: 'an existing price of the product; or give `price`' }))),
  price: Type.Optional(Nullable(PriceInput)),
  description: Type.Optional(Nullable(Type.String())),
  self_serviceable: Type.Optional(Type.Boolean({ default: false })),
  max_instances_per_subscription: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
  entitlements: Type.Optional(Type.Array(EntitlementInputSchema)),
});

export const UpdateAddOnRequest = Type.Object({
  name: Type.Optional(Nullable(Name())),
  description: Type.Optional(Nullable(Type.String())),
  price_id: Type.Optional(Nullable(Type.String())),
  price: Type.Optional(Nullable(PriceInput)),
  self_serviceable: Type.Optional(Nullable(Type.Boolean())),
  max_instances_per_subscription: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
  entitlements: Type.Optional(Type.Array(EntitlementInputSchema, { description: 'replaces the add-on\'s entitlements' })),
});

export const AddOn = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  product_id: Type.String(),
  price_id: Type.String(),
  fee_type: Type.Enum(FEE_TYPES),
  currency: Type.String(),
  price: Type.Object({ id: Type.String(), currency: Type.String(), fee: FeeSchema }),
  self_serviceable: Type.Boolean(),
  max_instances_per_subscription: Nullable(Type.Integer()),
  entitlements: Type.Array(EntitlementWireSchema),
  created_at: Type.String({ format: 'date-time' }),
  archived_at: Nullable(Type.String({ format: 'date-time' })),
});

export function addOnToWire(view: AddOnView) {
  return {
    id: view.id,
    name: view.name,
    description: view.description,
    product_id: view.product_id,
    price_id: view.price_id,
    fee_type: view.price.fee.type,
    currency: view.price.currency,
    price: { id: view.price.id, currency: view.price.currency, fee: view.price.fee },
    self_serviceable: view.self_serviceable,
    max_instances_per_subscription: view.max_instances_per_subscription,
    entitlements: view.entitlements.map(entitlementToWire),
    created_at: view.created_at.toISOString(),
    archived_at: view.archived_at ? view.archived_at.toISOString() : null,
  };
}
