import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/kernel/errors.js';
import { metricIdOf, parseFeeStructure } from '../../../src/modules/catalog/fees.js';

/** The 400 message a fee structure produces. */
function errorOf(raw: unknown): string {
  try {
    parseFeeStructure(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(400);
    return (error as AppError).message;
  }
  throw new Error(`${JSON.stringify(raw)} was accepted`);
}

describe('product fee structures', () => {
  it.each([
    ['RATE', { type: 'RATE' }, { type: 'RATE' }],
    ['ONE_TIME', { type: 'ONE_TIME' }, { type: 'ONE_TIME' }],
    [
      'SLOT: policies default to the only ones offered',
      { type: 'SLOT', slot_unit_name: 'seat' },
      { type: 'SLOT', slot_unit_name: 'seat', upgrade_policy: 'PRORATED', downgrade_policy: 'REMOVE_AT_END_OF_PERIOD' },
    ],
    ['CAPACITY', { type: 'CAPACITY', metric_id: 'bm_1' }, { type: 'CAPACITY', metric_id: 'bm_1' }],
    ['USAGE', { type: 'USAGE', metric_id: 'bm_1', model: 'TIERED' }, { type: 'USAGE', metric_id: 'bm_1', model: 'TIERED' }],
    ['EXTRA_RECURRING', { type: 'EXTRA_RECURRING', billing_type: 'ARREARS' }, { type: 'EXTRA_RECURRING', billing_type: 'ARREARS' }],
  ])('accepts %s', (_name, raw, expected) => {
    expect(parseFeeStructure(raw)).toEqual(expected);
  });

  it.each([
    ['not an object', [], 'fee_structure must be an object'],
    ['unknown type', { type: 'FLAT' }, 'fee_structure.type must be one of RATE, SLOT, CAPACITY, USAGE, EXTRA_RECURRING, ONE_TIME'],
    ['field of another type', { type: 'RATE', metric_id: 'bm_1' }, 'fee_structure.metric_id is not a field of a RATE fee structure'],
    ['slot without a unit name', { type: 'SLOT', slot_unit_name: ' ' }, 'fee_structure.slot_unit_name is required and must be a non-empty string'],
    ['usage without a metric', { type: 'USAGE', model: 'PER_UNIT' }, 'fee_structure.metric_id is required and must be a non-empty string'],
    ['usage with an unknown model', { type: 'USAGE', metric_id: 'bm_1', model: 'FLAT' }, 'fee_structure.model must be one of PER_UNIT, TIERED, VOLUME, PACKAGE, MATRIX'],
    ['recurring without a billing type', { type: 'EXTRA_RECURRING' }, 'fee_structure.billing_type must be one of ADVANCE, ARREARS'],
  ])('refuses %s', (_name, raw, message) => {
    expect(errorOf(raw)).toBe(message);
  });

  it('names the metric of CAPACITY and USAGE structures only', () => {
    expect(metricIdOf({ type: 'CAPACITY', metric_id: 'bm_1' })).toBe('bm_1');
    expect(metricIdOf({ type: 'USAGE', metric_id: 'bm_2', model: 'PER_UNIT' })).toBe('bm_2');
    expect(metricIdOf({ type: 'RATE' })).toBeUndefined();
  });
});
