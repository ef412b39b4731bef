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
 * The field an error message names, among a form's fields: the API's messages start with the
 * field's path (`name is required (body)`, `components[0].fee.rates[0].price must be ...`), so
 * the longest form field that path starts with wins. Undefined: the error belongs to the whole form.
 */
export function fieldOfError(message: string, fields: readonly string[]): string | undefined {
  const path = message.split(' ')[0] ?? '';
  return fields
    .filter((field) => path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`))
    .sort((a, b) => b.length - a.length)[0];
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
