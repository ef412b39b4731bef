import { hash, randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A random base62 string; 32 characters carry about 190 bits. */
export function randomToken(length = 32): string {
  // 248 = 4 * 62: rejecting bytes >= 248 keeps every character equally likely.
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/**
 * Hash for high-entropy secrets (API keys, OAuth tokens and codes). They are random, so a fast
 * hash is enough and keeps authentication at database speed; passwords use argon2id instead.
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}
