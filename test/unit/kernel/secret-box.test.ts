import { describe, expect, it } from 'vitest';
import { createSecretBox, secretHint } from '../../../src/kernel/secret-box.js';

describe('secret box', () => {
  const box = createSecretBox('service-secret', 'payment-provider-credentials');

  it('seals so that only the same secret, purpose and context open it', () => {
    const sealed = box.seal('sk_live_abcdef123456', 'ten_1/ppc_1/secret_key');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('abcdef');
    expect(box.seal('sk_live_abcdef123456', 'ten_1/ppc_1/secret_key')).not.toBe(sealed);
    expect(box.open(sealed, 'ten_1/ppc_1/secret_key')).toBe('sk_live_abcdef123456');
    expect(() => box.open(sealed, 'ten_2/ppc_1/secret_key')).toThrow();
    expect(() => createSecretBox('other-secret', 'payment-provider-credentials').open(sealed, 'ten_1/ppc_1/secret_key')).toThrow();
    expect(() => createSecretBox('service-secret', 'another-purpose').open(sealed, 'ten_1/ppc_1/secret_key')).toThrow();
  });

  it('hints with the prefix and the last four characters', () => {
    expect(secretHint('sk_live_51HxAbCdEf9f2A')).toBe('sk_live_...9f2A');
    expect(secretHint('whsec_abcdefgh1234')).toBe('whsec_...1234');
  });
});
