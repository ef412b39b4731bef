import { describe, expect, it } from 'vitest';
import { isIdOf, newId } from '../../../src/kernel/ids.js';

describe('newId', () => {
  it('gives distinct, well-formed ids across many draws of the random pool', () => {
    // 4,096 random bytes serve 256 ids: 3,000 ids cross the refill a dozen times
    const ids = Array.from({ length: 3_000 }, () => newId('invoice', 1_780_000_000_000));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(isIdOf('invoice', id)).toBe(true);
    // the same millisecond: only the random part tells them apart, and every character of the alphabet occurs in it
    const randomParts = ids.map((id) => id.slice('inv_'.length + 10));
    expect(new Set(randomParts).size).toBe(ids.length);
    expect(new Set(randomParts.join('')).size).toBe(32);
  });

  it('sorts by creation time as text', () => {
    const earlier = newId('customer', 1_780_000_000_000);
    const later = newId('customer', 1_780_000_000_001);
    expect(earlier < later).toBe(true);
  });
});
