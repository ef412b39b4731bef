import { badRequest } from '../../kernel/errors.js';

const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2000;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Redirect URIs are compared as exact strings at authorization time (RFC 9700 section 4.1.3),
 * so registration refuses anything that could be read as a pattern: wildcards, fragments
 * (RFC 6749 section 3.1.2), and plain http except on loopback addresses (RFC 8252 section 7.3).
 */
export function validateRedirectUris(value: unknown, field = 'redirect_uris'): string[] {
  if (!Array.isArray(value) || value.length === 0) throw badRequest(`${field} must be a non-empty array of absolute URLs`);
  if (value.length > MAX_REDIRECT_URIS) throw badRequest(`${field} must hold at most ${MAX_REDIRECT_URIS} URLs`);
  value.forEach((uri, index) => validateRedirectUri(uri, `${field}[${index}]`));
  if (new Set(value).size !== value.length) throw badRequest(`${field} must not repeat a URL`);
  return value as string[];
}

export function validateRedirectUri(uri: unknown, field: string): string {
  if (typeof uri !== 'string' || uri.length === 0 || uri.length > MAX_URI_LENGTH) {
    throw badRequest(`${field} must be a URL of 1 to ${MAX_URI_LENGTH} characters`);
  }
  if (uri.includes('*')) throw badRequest(`${field} must not contain wildcards; redirect URIs are matched exactly`);
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    throw badRequest(`${field} must be an absolute URL`);
  }
  if (parsed.hash || uri.includes('#')) throw badRequest(`${field} must not contain a fragment`);
  if (parsed.username || parsed.password) throw badRequest(`${field} must not contain credentials`);
  const loopback = LOOPBACK_HOSTS.has(parsed.hostname);
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && loopback)) {
    throw badRequest(`${field} must use https (plain http is allowed only for localhost and loopback addresses)`);
  }
  return uri;
}

/** A URL where the user's browser is sent back: the same rules as a redirect URI. */
export function validateReturnUrl(value: unknown, field = 'return_url'): string {
  return validateRedirectUri(value, field);
}

/** Appends query parameters to a registered URI, keeping the query it already has. */
export function withQuery(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  return url.toString();
}
