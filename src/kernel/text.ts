// What PostgreSQL's text and jsonb can hold. JSON and URLs can carry a NUL character or half of a
// UTF-16 surrogate pair; the database refuses both, so they are caught as client mistakes first.

/** Whether a text can be stored: no NUL character and no unpaired UTF-16 surrogate. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && text.isWellFormed();
}

export const NOT_STORABLE = 'contains a NUL character or an unpaired surrogate';

/**
 * The path of the first string in `value` that cannot be stored (`name`, `metadata.plan`,
 * `lines[2].description`; `a key of metadata` for a key), or undefined when all can.
 */
export function findUnstorableText(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableText(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (!isStorableText(key)) return path ? `a key of ${path}` : 'a key';
      const found = findUnstorableText(inner, path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return undefined;
}
