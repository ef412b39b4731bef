import { OAuthError } from './oauth-errors.js';

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/** RFC 6749 appendix B: Basic credentials are form-urlencoded before base64. */
function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

/**
 * Reads `Authorization: Basic base64(client_id:client_secret)` (RFC 6749 section 2.3.1). The
 * token endpoints accept no other client authentication, so anything else is invalid_client.
 */
export function parseBasicAuth(header: string | undefined): ClientCredentials {
  const match = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!match) throw new OAuthError('invalid_client', 'client authentication with HTTP Basic (client_id:client_secret) is required');
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) throw new OAuthError('invalid_client', 'malformed HTTP Basic credentials');
  try {
    return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw new OAuthError('invalid_client', 'malformed HTTP Basic credentials');
  }
}
