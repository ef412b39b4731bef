import type { AddOnWithPrice } from './repository.js';

/** `data` of addon.* events, in the reference's AddOnEventData shape. */
export function addOnEventData(addOn: AddOnWithPrice): Record<string, unknown> {
  return {
    add_on_id: addOn.id,
    name: addOn.name,
    description: addOn.description,
    product_id: addOn.product_id,
    price_id: addOn.price_id,
    fee_type: addOn.price.fee.type,
    self_serviceable: addOn.self_serviceable,
    max_instances_per_subscription: addOn.max_instances_per_subscription,
    created_at: addOn.created_at.toISOString(),
  };
}
