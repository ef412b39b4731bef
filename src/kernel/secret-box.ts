import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encryption at rest of credentials the service must use again (payment provider keys), as
 * opposed to secrets it only checks (API keys, hashed). AES-256-GCM with a key derived from the
 * service secret by HKDF-SHA256 and a `purpose`, so the same SECRET_KEY never keys two uses.
 * `context` (e.g. tenant and row id) is authenticated data: a sealed value copied to another row
 * does not open there. Sealed form: `v1.<base64url iv|tag|ciphertext>`.
 */
export function createSecretBox(serviceSecret: string, purpose: string) {
  const key = Buffer.from(hkdfSync('sha256', serviceSecret, 'tally-billing', purpose, 32));

  function seal(plain: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  function open(sealed: string, context: string): string {
    const [version, data] = sealed.split('.');
    if (version !== VERSION || !data) throw new Error('sealed secret: unknown format');
    const raw = Buffer.from(data, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }

  return { seal, open };
}

export type SecretBox = ReturnType<typeof createSecretBox>;

/** What may be shown of a secret: its prefix up to the last underscore and its last 4 characters. */
export function secretHint(secret: string): string {
  const prefix = secret.slice(0, Math.min(secret.lastIndexOf('_') + 1, 8));
  return `${prefix}...${secret.slice(-4)}`;
}
