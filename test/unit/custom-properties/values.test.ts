import { describe, expect, it } from 'vitest';
import { filterOf, parseValue, resolveValues, type PropertyRule } from '../../../src/modules/custom-properties/values.js';

const rule = (over: Partial<PropertyRule>): PropertyRule => ({ key: 'k', type: 'TEXT', options: null, required: false, default_value: null, display_order: 0, archived: false, ...over });

describe('parseValue', () => {
  it('normalizes numbers and date-times so equal values are equal text', () => {
    expect(parseValue({ type: 'NUMBER', options: null }, '12.50', 'f')).toBe('12.5');
    expect(parseValue({ type: 'NUMBER', options: null }, '-0.10', 'f')).toBe('-0.1');
    expect(parseValue({ type: 'DATE_TIME', options: null }, '2026-03-31T11:30:00+02:00', 'f')).toBe('2026-03-31T09:30:00.000Z');
  });

  it('refuses impossible dates and date-times without an offset', () => {
    expect(() => parseValue({ type: 'DATE', options: null }, '2026-02-29', 'f')).toThrow('f must be a YYYY-MM-DD calendar date');
    expect(() => parseValue({ type: 'DATE_TIME', options: null }, '2026-02-30T10:00:00Z', 'f')).toThrow('type DATE_TIME');
    expect(() => parseValue({ type: 'DATE_TIME', options: null }, '2026-03-01T10:00:00', 'f')).toThrow('type DATE_TIME');
  });

  it('keeps multi-select choices distinct and among the options', () => {
    const multi = { type: 'MULTI_SELECT' as const, options: ['a', 'b'] };
    expect(parseValue(multi, ['b', 'a'], 'f')).toEqual(['b', 'a']);
    expect(parseValue(multi, [], 'f')).toEqual([]);
    expect(() => parseValue(multi, ['a', 'a'], 'f')).toThrow('distinct');
    expect(() => parseValue(multi, 'a', 'f')).toThrow('type MULTI_SELECT');
  });

  it('takes only http and https URLs', () => {
    expect(parseValue({ type: 'URL', options: null }, 'https://example.com/x', 'f')).toBe('https://example.com/x');
    expect(() => parseValue({ type: 'URL', options: null }, 'javascript:alert(1)', 'f')).toThrow('absolute http or https URL');
  });
});

describe('resolveValues', () => {
  it('applies defaults on creation only, except for required keys', () => {
    const rules = [rule({ key: 'region', default_value: 'emea' }), rule({ key: 'tier', required: true, default_value: 'bronze' })];
    expect(resolveValues(rules, {}, { creating: true })).toEqual({ region: 'emea', tier: 'bronze' });
    expect(resolveValues(rules, {}, { creating: false })).toEqual({ tier: 'bronze' });
  });

  it('neither requires nor defaults archived definitions, but still checks their values', () => {
    const rules = [rule({ key: 'n', type: 'NUMBER', required: true, default_value: '1', archived: true })];
    expect(resolveValues(rules, {}, { creating: true })).toEqual({});
    expect(() => resolveValues(rules, { n: 'x' }, { creating: false })).toThrow('custom_properties.n must be a decimal string');
  });

  it('drops null keys and caps the number of keys', () => {
    expect(resolveValues([], { a: 'x', b: null }, { creating: false })).toEqual({ a: 'x' });
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    expect(() => resolveValues([], many, { creating: false })).toThrow('at most 50 keys');
  });
});

describe('filterOf', () => {
  it('reads the text as the key\'s type and ignores other parameters', () => {
    const rules = [rule({ key: 'vip', type: 'BOOLEAN' }), rule({ key: 'tags', type: 'MULTI_SELECT', options: ['x', 'y'] }), rule({ key: 'n', type: 'NUMBER' })];
    expect(filterOf(rules, { page: 1, 'custom_properties[vip]': 'false', 'custom_properties[tags]': 'y', 'custom_properties[n]': '3.0', 'custom_properties[free]': 'z' }))
      .toEqual({ vip: false, tags: ['y'], n: '3', free: 'z' });
    expect(filterOf(rules, { page: 1 })).toBeNull();
    expect(() => filterOf(rules, { 'custom_properties[vip]': ['true', 'false'] })).toThrow('may be given once');
  });
});
