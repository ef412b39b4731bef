import { describe, expect, it } from 'vitest';
import { findTextProblem, isStorableText, MAX_NESTING } from '../../../src/kernel/text.js';

describe('text PostgreSQL can store', () => {
  it('refuses NUL and unpaired surrogates, accepts paired ones', () => {
    expect(isStorableText('plain é 💶')).toBe(true);
    expect(isStorableText('a\u0000b')).toBe(false);
    expect(isStorableText('\ud83d')).toBe(false);
    expect(isStorableText('x\udcb6')).toBe(false);
  });

  it('names the first offending field, array element or key', () => {
    const field = (value: unknown) => findTextProblem(value)?.field;
    expect(findTextProblem({ name: 'ok', tags: ['a', 'b'], n: 3, nested: { deep: null } })).toBeUndefined();
    expect(field({ name: 'a\u0000' })).toBe('name');
    expect(field({ lines: [{ description: 'ok' }, { description: '\ud800' }] })).toBe('lines[1].description');
    expect(field({ metadata: { 'k\u0000': 'v' } })).toBe('a key of metadata');
    expect(field({ 'k\u0000': 'v' })).toBe('a key');
    expect(findTextProblem('\u0000')).toEqual({ field: '', reason: 'contains a NUL character or an unpaired surrogate' });
  });

  it('stops at MAX_NESTING levels instead of recursing without bound', () => {
    const nested = (levels: number) => JSON.parse('{"a":'.repeat(levels) + '1' + '}'.repeat(levels));
    expect(findTextProblem(nested(MAX_NESTING))).toBeUndefined();
    expect(findTextProblem(nested(MAX_NESTING + 1))?.reason).toBe(`nests more than ${MAX_NESTING} levels deep`);
    expect(findTextProblem(nested(100_000))?.field).toBe(Array.from({ length: MAX_NESTING }, () => 'a').join('.'));
  });
});
