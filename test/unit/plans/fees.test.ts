import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/kernel/errors.js';
import { availableParameters, decimalString, parsePlanFee, type PlanFee } from '../../../src/modules/plans/fees.js';

/** The 400 message a fee body produces, or 'ok'. */
function errorOf(raw: unknown, product?: Parameters<typeof parsePlanFee>[2]): string {
  try {
    parsePlanFee(raw, 'fee', product);
    return 'ok';
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(400);
    return (error as AppError).message;
  }
}

const tiers = (...firstUnits: number[]) => firstUnits.map((first_unit, i) => ({ first_unit, rate: `${5 - i}.00` }));

describe('decimal prices', () => {
  it.each([
    ['49.00', 'ok'],
    ['0', 'ok'],
    ['0.0015', 'ok'],
    [49, 'p must be a decimal string such as "49.00", not a JSON number'],
    ['-1', 'p must be a non-negative decimal string such as "49.00", got "-1"'],
    ['1e3', 'p must be a non-negative decimal string such as "49.00", got "1e3"'],
    ['.5', 'p must be a non-negative decimal string such as "49.00", got ".5"'],
    [' 5', 'p must be a non-negative decimal string such as "49.00", got " 5"'],
    [null, 'p must be a decimal string such as "49.00"'],
    ['999999999999.999999999999', 'ok'],
    ['1000000000000', 'p must have at most 12 digits before and 12 after the decimal point'],
    ['1.0000000000001', 'p must have at most 12 digits before and 12 after the decimal point'],
  ])('%j -> %s', (raw, expected) => {
    let message = 'ok';
    try {
      expect(decimalString(raw, 'p')).toBe(raw);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(expected);
  });
});

describe('fee types', () => {
  it('RATE: terms default to MONTHLY, must be unique, prices are decimal strings', () => {
    expect(parsePlanFee({ rates: [{ price: '9.99' }] }, 'fee', { type: 'RATE' })).toEqual({ type: 'RATE', rates: [{ term: 'MONTHLY', price: '9.99' }] });
    expect(errorOf({ type: 'RATE', rates: [] })).toBe('fee.rates must have at least 1 item');
    expect(errorOf({ type: 'RATE', rates: [{ term: 'WEEKLY', price: '1' }] })).toBe('fee.rates[0].term must be one of MONTHLY, QUARTERLY, SEMIANNUAL, ANNUAL');
    expect(errorOf({ type: 'RATE', rates: [{ term: 'ANNUAL', price: '1' }, { term: 'ANNUAL', price: '2' }] })).toBe('fee.rates[1].term ANNUAL is given twice');
    expect(errorOf({ type: 'RATE', rates: [{ price: 10 }] })).toBe('fee.rates[0].price must be a decimal string such as "49.00", not a JSON number');
    expect(errorOf({ type: 'RATE', rates: [{ price: '1' }], unit_price: '2' })).toBe('fee.unit_price is not a field of a RATE fee');
    expect(errorOf({ rates: [{ price: '1' }] })).toBe('fee.type must be one of RATE, SLOT, CAPACITY, USAGE, EXTRA_RECURRING, ONE_TIME');
  });

  it('SLOT: unit name from the product, minimum and maximum slots, fixed policies', () => {
    const product = { type: 'SLOT', slot_unit_name: 'seat', upgrade_policy: 'PRORATED', downgrade_policy: 'REMOVE_AT_END_OF_PERIOD' } as const;
    expect(parsePlanFee({ rates: [{ term: 'MONTHLY', price: '10' }], minimum_count: 1, quota: 50 }, 'fee', product)).toEqual({
      type: 'SLOT',
      rates: [{ term: 'MONTHLY', price: '10' }],
      slot_unit_name: 'seat',
      minimum_count: 1,
      quota: 50,
      upgrade_policy: 'PRORATED',
      downgrade_policy: 'REMOVE_AT_END_OF_PERIOD',
    });
    expect(errorOf({ rates: [{ price: '10' }], minimum_count: 5, quota: 2 }, product)).toBe('fee.quota must be >= fee.minimum_count');
    expect(errorOf({ rates: [{ price: '10' }], minimum_count: -1 }, product)).toBe('fee.minimum_count must be an integer >= 0');
    expect(errorOf({ rates: [{ price: '10' }], upgrade_policy: 'IMMEDIATE' }, product)).toBe('fee.upgrade_policy must be one of PRORATED');
    expect(errorOf({ type: 'SLOT', rates: [{ price: '10' }] })).toBe('fee.slot_unit_name is required and must be a non-empty string');
  });

  it('CAPACITY: thresholds with included amount, price and overage, bound to the product metric', () => {
    const product = { type: 'CAPACITY', metric_id: 'bm_1' } as const;
    const fee = { thresholds: [{ included_amount: 1000, price: '50', per_unit_overage: '0.05' }, { included_amount: 5000, price: '200', per_unit_overage: '0.04' }] };
    expect(parsePlanFee(fee, 'fee', product)).toEqual({ type: 'CAPACITY', metric_id: 'bm_1', cadence: 'MONTHLY', thresholds: fee.thresholds });
    expect(errorOf({ ...fee, metric_id: 'bm_2' }, product)).toBe('fee.metric_id must be the product\'s metric bm_1');
    expect(errorOf({ thresholds: [{ included_amount: 1.5, price: '1', per_unit_overage: '1' }] }, product)).toBe('fee.thresholds[0].included_amount must be an integer >= 0');
    expect(errorOf({ thresholds: [fee.thresholds[0], fee.thresholds[0]] }, product)).toBe('fee.thresholds[1].included_amount 1000 is given twice');
    expect(errorOf({ thresholds: [{ included_amount: 1, price: '1', per_unit_overage: 0.1 }] }, product)).toBe(
      'fee.thresholds[0].per_unit_overage must be a decimal string such as "49.00", not a JSON number',
    );
  });

  it('EXTRA_RECURRING and ONE_TIME: unit price and quantity (default 1), billing type from the product', () => {
    expect(parsePlanFee({ unit_price: '12.50', quantity: 3 }, 'fee', { type: 'EXTRA_RECURRING', billing_type: 'ARREARS' })).toEqual({
      type: 'EXTRA_RECURRING',
      unit_price: '12.50',
      quantity: 3,
      billing_type: 'ARREARS',
      cadence: 'MONTHLY',
    });
    expect(errorOf({ unit_price: '1', billing_type: 'ADVANCE' }, { type: 'EXTRA_RECURRING', billing_type: 'ARREARS' })).toBe('fee.billing_type must be the product\'s billing type ARREARS');
    expect(errorOf({ type: 'EXTRA_RECURRING', unit_price: '1' })).toBe('fee.billing_type must be one of ADVANCE, ARREARS');
    expect(parsePlanFee({ unit_price: '99' }, 'fee', { type: 'ONE_TIME' })).toEqual({ type: 'ONE_TIME', unit_price: '99', quantity: 1 });
    expect(errorOf({ unit_price: '99', quantity: -1 }, { type: 'ONE_TIME' })).toBe('fee.quantity must be an integer >= 0');
    expect(errorOf({ unit_price: '99', cadence: 'MONTHLY' }, { type: 'ONE_TIME' })).toBe('fee.cadence is not a field of a ONE_TIME fee');
  });
});

describe('usage pricing models', () => {
  const usage = (model: 'PER_UNIT' | 'TIERED' | 'VOLUME' | 'PACKAGE' | 'MATRIX') => ({ type: 'USAGE', metric_id: 'bm_1', model }) as const;

  it('accepts every model in its shape', () => {
    expect(parsePlanFee({ pricing: { rate: '0.001' } }, 'fee', usage('PER_UNIT'))).toEqual({ type: 'USAGE', metric_id: 'bm_1', cadence: 'MONTHLY', pricing: { type: 'PER_UNIT', rate: '0.001' } });
    const tiered = parsePlanFee({ cadence: 'ANNUAL', pricing: { tiers: [{ first_unit: 0, rate: '1', flat_fee: '10' }, { first_unit: 100, rate: '0.5', flat_cap: '500' }] } }, 'fee', usage('TIERED'));
    expect(tiered).toEqual({
      type: 'USAGE',
      metric_id: 'bm_1',
      cadence: 'ANNUAL',
      pricing: { type: 'TIERED', block_size: null, tiers: [{ first_unit: 0, rate: '1', flat_fee: '10', flat_cap: null }, { first_unit: 100, rate: '0.5', flat_fee: null, flat_cap: '500' }] },
    });
    expect((parsePlanFee({ pricing: { tiers: tiers(0) } }, 'fee', usage('VOLUME')) as Extract<PlanFee, { type: 'USAGE' }>).pricing.type).toBe('VOLUME');
    expect(parsePlanFee({ pricing: { block_size: 100, rate: '2' } }, 'fee', usage('PACKAGE'))).toMatchObject({ pricing: { type: 'PACKAGE', block_size: 100, rate: '2', rounding: 'UP' } });
    expect(parsePlanFee({ pricing: { block_size: 100, rate: '2', rounding: 'DOWN' } }, 'fee', usage('PACKAGE'))).toMatchObject({ pricing: { rounding: 'DOWN' } });
    const matrix = {
      rates: [
        { dimension1: { key: 'region', value: 'eu' }, dimension2: { key: 'tier', value: 'gpu' }, per_unit_price: '0.2' },
        { dimension1: { key: 'region', value: 'us' }, dimension2: { key: 'tier', value: 'gpu' }, per_unit_price: '0.3' },
      ],
    };
    expect(parsePlanFee({ pricing: matrix }, 'fee', usage('MATRIX'))).toMatchObject({ pricing: { type: 'MATRIX', rates: matrix.rates } });
  });

  it.each([
    ['tiers must start at 0', { tiers: tiers(1, 10) }, 'fee.pricing.tiers[0].first_unit must be 0: the first tier starts at unit 0'],
    ['tiers must rise', { tiers: tiers(0, 100, 100) }, 'fee.pricing.tiers[2].first_unit must be greater than fee.pricing.tiers[1].first_unit (100)'],
    ['tiers must not fall', { tiers: tiers(0, 100, 50) }, 'fee.pricing.tiers[2].first_unit must be greater than fee.pricing.tiers[1].first_unit (100)'],
    ['at least one tier', { tiers: [] }, 'fee.pricing.tiers must have at least 1 item'],
    ['tier rate is a decimal string', { tiers: [{ first_unit: 0, rate: 1 }] }, 'fee.pricing.tiers[0].rate must be a decimal string such as "49.00", not a JSON number'],
    ['flat fee non-negative', { tiers: [{ first_unit: 0, rate: '1', flat_fee: '-2' }] }, 'fee.pricing.tiers[0].flat_fee must be a non-negative decimal string such as "49.00", got "-2"'],
    ['model must match the product', { type: 'VOLUME', tiers: tiers(0) }, "fee.pricing.type is VOLUME but the product's usage model is TIERED"],
  ])('TIERED: %s', (_name, pricing, message) => {
    expect(errorOf({ pricing }, usage('TIERED'))).toBe(message);
  });

  it('rejects bad package, matrix and metric bindings', () => {
    expect(errorOf({ pricing: { block_size: 0, rate: '1' } }, usage('PACKAGE'))).toBe('fee.pricing.block_size must be an integer >= 1');
    expect(errorOf({ pricing: { block_size: 10, rate: '1', rounding: 'NEAREST' } }, usage('PACKAGE'))).toBe('fee.pricing.rounding must be one of UP, DOWN');
    const row = (key: string, value: string) => ({ dimension1: { key, value }, per_unit_price: '1' });
    expect(errorOf({ pricing: { rates: [row('region', 'eu'), row('region', 'eu')] } }, usage('MATRIX'))).toBe('fee.pricing.rates[1] prices the same cell as an earlier row');
    expect(errorOf({ pricing: { rates: [row('region', 'eu'), row('zone', 'us')] } }, usage('MATRIX'))).toBe('fee.pricing.rates[1] must use the same dimension keys as fee.pricing.rates[0]');
    expect(errorOf({ type: 'USAGE', pricing: { type: 'PER_UNIT', rate: '1' } })).toBe('fee.metric_id is required and must be a non-empty string');
    expect(errorOf({ pricing: { rate: '1' }, cadence: 'DAILY' }, usage('PER_UNIT'))).toBe('fee.cadence must be one of MONTHLY, QUARTERLY, SEMIANNUAL, ANNUAL');
  });
});

describe('available parameters', () => {
  it('lists only the choices a subscription has to make', () => {
    const fees: { id: string; fee: PlanFee }[] = [
      { id: 'price_rate1', fee: { type: 'RATE', rates: [{ term: 'MONTHLY', price: '10' }] } },
      { id: 'price_rate2', fee: { type: 'RATE', rates: [{ term: 'MONTHLY', price: '10' }, { term: 'ANNUAL', price: '100' }] } },
      { id: 'price_cap1', fee: { type: 'CAPACITY', metric_id: 'bm', cadence: 'MONTHLY', thresholds: [{ included_amount: 10, price: '1', per_unit_overage: '1' }] } },
      {
        id: 'price_cap2',
        fee: { type: 'CAPACITY', metric_id: 'bm', cadence: 'MONTHLY', thresholds: [{ included_amount: 10, price: '1', per_unit_overage: '1' }, { included_amount: 20, price: '2', per_unit_overage: '1' }] },
      },
      { id: 'price_seat', fee: { type: 'SLOT', rates: [{ term: 'MONTHLY', price: '5' }], slot_unit_name: 'seat', minimum_count: null, quota: null, upgrade_policy: 'PRORATED', downgrade_policy: 'REMOVE_AT_END_OF_PERIOD' } },
    ];
    expect(availableParameters(fees)).toEqual({
      billing_periods: { price_rate2: ['MONTHLY', 'ANNUAL'] },
      capacity_thresholds: { price_cap2: [10, 20] },
      slot_components: ['price_seat'],
    });
  });
});
