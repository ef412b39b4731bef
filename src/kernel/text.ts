// What PostgreSQL's text and jsonb can hold. JSON and URLs can carry a NUL character or half of a
// UTF-16 surrogate pair; the database refuses both, so they are caught as client mistakes first.

/** Whether a text can be stored: no NUL character and no unpaired UTF-16 surrogate. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && text.isWellFormed();
}

export const NOT_STORABLE = 'contains a NUL character or an unpaired surrogate';

/**
 * Deepest nesting of objects and arrays a request may have. No operation needs more than a few
 * levels, and unbounded depth would exhaust the stack of any recursive reader (ours, the
 * validator's, PostgreSQL's JSON parser).
 */
export const MAX_NESTING = 32;

export interface TextProblem {
  /** `name`, `metadata.plan`, `lines[2].description`; `a key of metadata` for a key. */
  field: string;
  reason: string;
}

/** The first string in `value` that cannot be stored, or a nesting beyond MAX_NESTING. */
export function findTextProblem(value: unknown, path = '', depth = 0): TextProblem | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : { field: path, reason: NOT_STORABLE };
  if (value === null || typeof value !== 'object') return undefined;
  if (depth >= MAX_NESTING) return { field: path, reason: `nests more than ${MAX_NESTING} levels deep` };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findTextProblem(value[i], `${path}[${i}]`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, inner] of Object.entries(value)) {
    if (!isStorableText(key)) return { field: path ? `a key of ${path}` : 'a key', reason: NOT_STORABLE };
    const found = findTextProblem(inner, path ? `${path}.${key}` : key, depth + 1);
    if (found) return found;
  }
  return undefined;
}
