import type { ProductRow } from './repository.js';

/** `data` of product.* events, in the reference's ProductEventData shape. */
export function productEventData(product: ProductRow): Record<string, unknown> {
  return {
    product_id: product.id,
    name: product.name,
    description: product.description,
    fee_type: product.fee_type,
    product_family_id: product.product_family_id,
    created_at: product.created_at.toISOString(),
    custom_properties: product.custom_properties,
  };
}
