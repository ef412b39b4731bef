// Catalog fixtures for subscription tests. Plans are seeded with SQL in the plans module's
// tables (migration 0150) so these tests do not depend on the plans API being wired.
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

export async function seedPlan(h: Harness, tenantId: string, key: string, options: { currency?: string; trialDays?: number; trialIsFree?: boolean; annual?: boolean; trialingPlanId?: string } = {}): Promise<SeededPlan> {
  const family = await h.request('POST', '/api/v1/product_families', { key, body: { name: 'Fam' } });
  expect(family.statusCode).toBe(201);
  const product = async (fee_structure: Record<string, unknown>) => {
    const res = await h.request('POST', '/api/v1/products', { key, body: { name: 'P', product_family_id: family.json().id, fee_structure } });
    expect(res.statusCode).toBe(201);
    return res.json().id as string;
  };
  const rateProduct = await product({ type: 'RATE' });
  const slotProduct = await product({ type: 'SLOT', slot_unit_name: 'seat' });
  const planId = id('plan');
  const versionId = id('plv');
  const now = new Date('2026-01-01T00:00:00Z');
  const db = h.db.pool;
  await db.query('BEGIN');
  await db.query(
    `INSERT INTO plans (id, tenant_id, product_family_id, name, plan_type, status, active_version_id, created_at, updated_at) VALUES ($1, $2, $3, 'Pro', 'STANDARD', 'ACTIVE', $4, $5, $5)`,
    [planId, tenantId, family.json().id, versionId, now],
  );
  await db.query(
    `INSERT INTO plan_versions (id, tenant_id, plan_id, version, is_draft, currency, net_terms, trial_duration_days, trial_is_free, trialing_plan_id, created_at, published_at)
     VALUES ($1, $2, $3, 1, false, $4, 15, $5, $6, $8, $7, $7)`,
    [versionId, tenantId, planId, options.currency ?? 'EUR', options.trialDays ?? null, options.trialIsFree ?? false, now, options.trialingPlanId ?? null],
  );
  await db.query('COMMIT');
  const rateComponentId = id('price');
  const slotComponentId = id('price');
  const rates = options.annual ? [{ term: 'MONTHLY', price: '49.00' }, { term: 'ANNUAL', price: '490.00' }] : [{ term: 'MONTHLY', price: '49.00' }];
  await db.query(`INSERT INTO price_components (id, tenant_id, plan_version_id, position, name, product_id, fee_type, fee) VALUES ($1, $2, $3, 0, 'Platform', $4, 'RATE', $5)`,
    [rateComponentId, tenantId, versionId, rateProduct, JSON.stringify({ type: 'RATE', rates })]);
  await db.query(`INSERT INTO price_components (id, tenant_id, plan_version_id, position, name, product_id, fee_type, fee) VALUES ($1, $2, $3, 1, 'Seats', $4, 'SLOT', $5)`,
    [slotComponentId, tenantId, versionId, slotProduct, JSON.stringify({ type: 'SLOT', rates: [{ term: 'MONTHLY', price: '10.00' }], slot_unit_name: 'seat', minimum_count: 1, quota: 50, upgrade_policy: 'PRORATED', downgrade_policy: 'REMOVE_AT_END_OF_PERIOD' })]);
  return { planId, versionId, rateComponentId, slotComponentId };
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
