import { describe, expect, it } from 'vitest';
import { findUnstorableText, isStorableText } from '../../src/kernel/text.js';

describe('text PostgreSQL can store', () => {
  it('refuses NUL and unpaired surrogates, accepts paired ones', () => {
    expect(isStorableText('plain é 💶')).toBe(true);
    expect(isStorableText('a\u0000b')).toBe(false);
    expect(isStorableText('\ud83d')).toBe(false);
    expect(isStorableText('x\udcb6')).toBe(false);
  });

  it('names the first offending field, array element or key', () => {
    expect(findUnstorableText({ name: 'ok', tags: ['a', 'b'], n: 3, nested: { deep: null } }, '')).toBeUndefined();
    expect(findUnstorableText({ name: 'a\u0000' }, '')).toBe('name');
    expect(findUnstorableText({ lines: [{ description: 'ok' }, { description: '\ud800' }] }, '')).toBe('lines[1].description');
    expect(findUnstorableText({ metadata: { 'k\u0000': 'v' } }, '')).toBe('a key of metadata');
    expect(findUnstorableText({ 'k\u0000': 'v' }, '')).toBe('a key');
    expect(findUnstorableText('\u0000', '')).toBe('');
  });
});
