import { describe, expect, it } from 'vitest';
import { checkAggregation, checkGroupBy, groupByKeys, parseSegmentationMatrix, parseUnitConversion } from '../../src/modules/metrics/definition.js';
import { nextStatus } from '../../src/modules/features/service.js';
import { parseEntitlementValue, parseFeatureCode } from '../../src/modules/features/values.js';
import { couponStatus, parseDiscount, whyNotApplicable, type CouponTerms } from '../../src/modules/coupons/rules.js';

describe('metric definitions', () => {
  it.each([
    ['COUNT', undefined, null],
    ['COUNT', null, null],
    ['SUM', 'amount', 'amount'],
    ['COUNT_DISTINCT', 'user_id', 'user_id'],
  ] as const)('%s with key %s gives %s', (type, key, expected) => {
    expect(checkAggregation(type, key)).toBe(expected);
  });

  it.each([
    ['SUM', undefined, 'aggregation_key is required'],
    ['LATEST', '  ', 'aggregation_key is required'],
    ['COUNT', 'x', 'aggregation_key must be omitted'],
    ['MAX', 'x'.repeat(513), 'aggregation_key must be at most 512 bytes'],
  ] as const)('%s with a bad key is refused', (type, key, message) => {
    expect(() => checkAggregation(type, key)).toThrow(message);
  });

  it('normalises segmentation matrices and lists their group-by keys', () => {
    const linked = parseSegmentationMatrix({ type: 'LINKED', dimension1_key: 'cloud', dimension2_key: 'region', values: { aws: ['eu-west-1'], gcp: ['europe-west1'] } });
    expect(linked).toEqual({ type: 'LINKED', dimension1_key: 'cloud', dimension2_key: 'region', values: { aws: ['eu-west-1'], gcp: ['europe-west1'] } });
    expect(groupByKeys(linked, 'project')).toEqual(['project', 'cloud', 'region']);
    expect(groupByKeys(null, null)).toEqual([]);
    expect(() => checkGroupBy(parseSegmentationMatrix({ type: 'SINGLE', key: 'model', values: ['a'] }), 'model')).toThrow("usage_group_key 'model'");
  });

  it.each([
    [{ type: 'TRIPLE' }, 'segmentation_matrix.type must be one of SINGLE, DOUBLE, LINKED'],
    [{ type: 'SINGLE', key: 'k', values: ['a', 'a'] }, "segmentation_matrix.values[1] 'a' is listed twice"],
    [{ type: 'DOUBLE', dimension1: { key: 'a', values: ['x'] }, dimension2: { key: 'a', values: ['y'] } }, 'segmentation_matrix.dimension2.key must differ'],
    [{ type: 'SINGLE', key: 'k', values: ['a'], extra: 1 }, 'segmentation_matrix.extra is not a field'],
  ])('refuses segmentation %j', (raw, message) => {
    expect(() => parseSegmentationMatrix(raw)).toThrow(message);
  });

  it('validates unit conversions', () => {
    expect(parseUnitConversion({ factor: 1024, rounding: 'NEAREST_HALF' })).toEqual({ factor: 1024, rounding: 'NEAREST_HALF' });
    expect(() => parseUnitConversion({ factor: 2.5, rounding: 'UP' })).toThrow('unit_conversion.factor must be an integer');
    expect(() => parseUnitConversion({ factor: 2, rounding: 'HALF_EVEN' })).toThrow('unit_conversion.rounding must be one of');
  });
});

describe('features', () => {
  it.each([
    ['ACTIVE', 'disable', 'DISABLED'],
    ['ACTIVE', 'enable', null],
    ['DISABLED', 'enable', 'ACTIVE'],
    ['DISABLED', 'archive', 'ARCHIVED'],
    ['ARCHIVED', 'archive', null],
    ['ARCHIVED', 'unarchive', 'ACTIVE'],
    ['DISABLED', 'unarchive', null],
    ['ARCHIVED', 'enable', { refused: 'feature is archived; unarchive it first' }],
    ['ARCHIVED', 'disable', { refused: 'feature is archived; unarchive it first' }],
  ] as const)('%s --%s--> %j', (from, move, to) => {
    expect(nextStatus(from, move)).toEqual(to);
  });

  it('checks codes', () => {
    expect(parseFeatureCode('api-calls_v2')).toBe('api-calls_v2');
    for (const bad of ['', '-lead', 'Upper', 'with space', 'x'.repeat(129), 42]) expect(() => parseFeatureCode(bad)).toThrow('code must be');
  });

  it('parses entitlement values against the feature type', () => {
    expect(parseEntitlementValue('BOOLEAN', { enabled: true })).toEqual({ type: 'BOOLEAN', enabled: true });
    expect(parseEntitlementValue('METERED', { limit: '1000.50', reset_period: { type: 'FIXED_WINDOW', unit: 'DAY', interval: 7 } })).toEqual({
      type: 'METERED', enabled: true, limit: '1000.5', reset_period: { type: 'FIXED_WINDOW', unit: 'DAY', interval: 7 },
    });
    expect(parseEntitlementValue('METERED', { enabled: false, limit: '0', reset_period: { type: 'BILLING_CYCLE' } })).toEqual({
      type: 'METERED', enabled: false, limit: '0', reset_period: { type: 'BILLING_CYCLE' },
    });
    expect(() => parseEntitlementValue('METERED', { limit: 5 })).toThrow('value.limit must be a decimal string');
    expect(() => parseEntitlementValue('METERED', { reset_period: { type: 'CALENDAR', unit: 'MONTH', interval: 0 } })).toThrow('value.reset_period.interval');
    expect(() => parseEntitlementValue('METERED', { reset_period: { type: 'NEVER', unit: 'DAY' } })).toThrow('value.reset_period.unit is not a field');
    expect(() => parseEntitlementValue('BOOLEAN', { enabled: 'yes' })).toThrow('value.enabled is required and must be a boolean');
  });
});

describe('coupons', () => {
  const base: CouponTerms = {
    code: 'C', discount: { type: 'FIXED', currency: 'EUR', amount: '5.00' }, expires_at: new Date('2026-04-01T00:00:00Z'),
    redemption_limit: 3, redemption_count: 0, reusable: true, disabled: false, archived_at: null, plan_ids: [],
  };
  const at = new Date('2026-03-01T00:00:00Z');

  it.each([
    [{}, {}, null],
    [{ archived_at: at }, {}, "coupon 'C' is archived"],
    [{ disabled: true }, {}, "coupon 'C' is disabled"],
    [{}, { at: new Date('2026-04-01T00:00:00Z') }, "coupon 'C' expired at 2026-04-01T00:00:00.000Z"],
    [{ expires_at: null }, { at: new Date('2099-01-01T00:00:00Z') }, null],
    [{ redemption_count: 3 }, {}, "coupon 'C' reached its redemption limit of 3"],
    [{ redemption_limit: null, redemption_count: 1000 }, {}, null],
    [{}, { currency: 'USD' }, "coupon 'C' is in EUR, the subscription in USD"],
    [{ discount: { type: 'PERCENTAGE', percentage: '10' } }, { currency: 'USD' }, null],
    [{ plan_ids: ['plan_A'] }, { planId: 'plan_B' }, "coupon 'C' does not apply to plan 'plan_B'"],
    [{ plan_ids: ['plan_A'] }, { planId: 'plan_A' }, null],
    [{ reusable: false }, { alreadyRedeemedByCustomer: true }, "coupon 'C' was already redeemed by this customer"],
    [{ reusable: true }, { alreadyRedeemedByCustomer: true }, null],
  ] as const)('terms %j in context %j: %s', (terms, context, reason) => {
    expect(whyNotApplicable({ ...base, ...(terms as Partial<CouponTerms>) }, { at, ...context })).toBe(reason);
  });

  it('derives the status views', () => {
    expect(couponStatus(base, at)).toBe('ACTIVE');
    expect(couponStatus({ ...base, redemption_count: 3 }, at)).toBe('INACTIVE');
    expect(couponStatus({ ...base, disabled: true, archived_at: at }, at)).toBe('ARCHIVED');
    expect(couponStatus(base, new Date('2026-04-01T00:00:00Z'))).toBe('INACTIVE');
  });

  it('normalises discounts to the currency precision', () => {
    expect(parseDiscount({ type: 'PERCENTAGE', percentage: '12.50' })).toEqual({ type: 'PERCENTAGE', percentage: '12.5' });
    expect(parseDiscount({ type: 'FIXED', currency: 'KWD', amount: '1.5' })).toEqual({ type: 'FIXED', currency: 'KWD', amount: '1.500' });
    expect(() => parseDiscount({ type: 'FIXED', currency: 'JPY', amount: '10.5' })).toThrow('discount.amount has more than 0 decimals for JPY');
    expect(() => parseDiscount({ type: 'PERCENTAGE', percentage: '10.12345' })).toThrow('at most 4 decimals');
    expect(() => parseDiscount({ type: 'FIXED', currency: 'eur', amount: '1' })).toThrow('discount.currency must be an ISO 4217 code');
  });
});
