// Catalog fixtures for subscription tests: plans through the plans API; entitlement grants and
// add-on offers on an existing version are written into the plans module's tables directly.
import { expect } from 'vitest';
import type { Harness } from '../harness/app.js';

let seq = 0;
const id = (prefix: string) => `${prefix}_${String(Date.now()).padStart(16, '0')}${String(++seq).padStart(10, '0')}`;

export interface SeededPlan {
  planId: string;
  versionId: string;
  rateComponentId: string;
  slotComponentId: string;
}

export async function seedPlan(h: Harness, _tenantId: string, key: string, options: { currency?: string; trialDays?: number; trialIsFree?: boolean; annual?: boolean; trialingPlanId?: string; status?: 'ACTIVE' | 'INACTIVE' } = {}): Promise<SeededPlan> {
  const post = async (url: string, body: unknown) => {
    const res = await h.request('POST', url, { key, body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const family = await post('/api/v1/product_families', { name: 'Fam' });
  const rateProduct = await post('/api/v1/products', { name: 'P', product_family_id: family.id, fee_structure: { type: 'RATE' } });
  const slotProduct = await post('/api/v1/products', { name: 'P', product_family_id: family.id, fee_structure: { type: 'SLOT', slot_unit_name: 'seat' } });
  const rates = options.annual ? [{ term: 'MONTHLY', price: '49.00' }, { term: 'ANNUAL', price: '490.00' }] : [{ term: 'MONTHLY', price: '49.00' }];
  const plan = await post('/api/v1/plans', {
    name: 'Pro',
    currency: options.currency ?? 'EUR',
    product_family_id: family.id,
    status: options.status ?? 'ACTIVE',
    billing: { net_terms: 15 },
    ...(options.trialDays !== undefined
      ? { trial: { duration_days: options.trialDays, is_free: options.trialIsFree ?? false, ...(options.trialingPlanId ? { trialing_plan_id: options.trialingPlanId } : {}) } }
      : {}),
    components: [
      { name: 'Platform', product_id: rateProduct.id, fee: { rates } },
      { name: 'Seats', product_id: slotProduct.id, fee: { rates: [{ price: '10.00' }], minimum_count: 1, quota: 50 } },
    ],
  });
  const [rate, slot] = plan.price_components as { id: string }[];
  return { planId: plan.id, versionId: plan.version_id, rateComponentId: rate!.id, slotComponentId: slot!.id };
}

export async function seedCustomer(h: Harness, key: string, body: Record<string, unknown> = {}): Promise<{ id: string; alias: string | null }> {
  const res = await h.request('POST', '/api/v1/customers', { key, body: { name: 'Cust', currency: 'EUR', ...body } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** Grants entitlements on a seeded plan version (catalog_entitlements, as the plans module stores them). */
export async function grantPlanEntitlements(h: Harness, tenantId: string, versionId: string, grants: { featureId: string; value: Record<string, unknown> }[]): Promise<void> {
  for (const [position, grant] of grants.entries()) {
    await h.db.pool.query(
      `INSERT INTO catalog_entitlements (id, tenant_id, feature_id, plan_version_id, value, position, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, now(), now())`,
      [id('ent'), tenantId, grant.featureId, versionId, JSON.stringify(grant.value), position],
    );
  }
}

/** Offers an existing add-on with a seeded plan version. */
export async function offerAddOn(h: Harness, tenantId: string, versionId: string, addOnId: string, maxInstances: number | null = null): Promise<void> {
  await h.db.pool.query(`INSERT INTO plan_version_add_ons (tenant_id, plan_version_id, add_on_id, max_instances) VALUES ($1, $2, $3, $4)`, [tenantId, versionId, addOnId, maxInstances]);
}
