import { ApiError } from './api';

/** Headers every API call carries; set by the session provider when the tenant changes. */
const current = { csrfToken: '', tenantId: undefined as string | undefined };

export function configureClient(options: { csrfToken: string; tenantId: string | undefined }): void {
  current.csrfToken = options.csrfToken;
  current.tenantId = options.tenantId;
}

export const TENANT_HEADER = 'x-tenant-id';
export const CSRF_HEADER = 'x-csrf-token';

/** One API call with the session's cookie; a refusal throws an ApiError. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', [CSRF_HEADER]: current.csrfToken };
  if (current.tenantId) headers[TENANT_HEADER] = current.tenantId;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(`/api/v1${path}`, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    throw new ApiError(0, 'NETWORK', `the service did not answer (${(error as Error).message}); check your connection and try again`);
  }
  if (res.status === 204) return undefined as T;
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(res.status, json.code ?? 'ERROR', json.message ?? `request failed with status ${res.status}`);
  return json as T;
}
