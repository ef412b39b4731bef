import { BillingApiError } from '@tally-billing/sdk';

/**
 * How the dashboard reaches the API: same origin, the sign-in session's cookie, the CSRF token
 * of that session and the tenant chosen in the header bar (docs/dashboard.md, "Talking to the API").
 */

/** An API refusal, as the error contract sends it: `{code, message}`; the message names the field. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  get notFound(): boolean {
    return this.status === 404;
  }
}

/**
 * The form path (Mantine's `components.0.fee.pricing.rate`) of the field an API message names:
 * messages start with the body path (`url must match ...`, `components[0].fee.pricing.rate must
 * be ...`). The deepest part of that path the form holds a plain value or a list of plain values
 * at (one input) wins; undefined when the message names no field of the form (then the error is
 * shown above it).
 */
export function fieldOfError(message: string, values: unknown): string | undefined {
  const isInput = (node: unknown) => node === null || typeof node !== 'object' || (Array.isArray(node) && node.every((item) => item === null || typeof item !== 'object'));
  const parts = (message.split(' ')[0] ?? '').replace(/\[(\d+)\]/g, '.$1').split('.').filter(Boolean);
  let node: unknown = values;
  let found: string | undefined;
  for (let i = 0; i < parts.length; i += 1) {
    if (node === null || typeof node !== 'object' || !(parts[i]! in node)) break;
    node = (node as Record<string, unknown>)[parts[i]!];
    if (isInput(node)) {
      found = parts.slice(0, i + 1).join('.');
      break;
    }
  }
  return found;
}

/** Makes any thrown value an ApiError (the SDK's BillingApiError; network failures become a 0-status one). */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof BillingApiError) return new ApiError(error.status, error.code ?? 'ERROR', error.message);
  if (error && typeof error === 'object' && 'code' in error && 'message' in error) {
    const body = error as { code: unknown; message: unknown; status?: unknown };
    return new ApiError(typeof body.status === 'number' ? body.status : 400, String(body.code), String(body.message));
  }
  return new ApiError(0, 'NETWORK', error instanceof Error ? error.message : 'the service did not answer; check your connection and try again');
}
