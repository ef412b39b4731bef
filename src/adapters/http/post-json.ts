/** The outcome of one outbound POST; transport failures are data, not exceptions. */
export interface PostOutcome {
  /** HTTP status, or null when no response arrived (timeout, refused, DNS...). */
  statusCode: number | null;
  /** The start of the response body, for the delivery log. */
  responseExcerpt: string | null;
  /** Why no response arrived. */
  error: string | null;
  durationMs: number;
}

export type PostJson = (url: string, body: string, headers: Record<string, string>, timeoutMs: number) => Promise<PostOutcome>;

export const RESPONSE_EXCERPT_CHARS = 1000;

/**
 * POSTs a JSON body with a hard timeout covering connect, headers and body. Redirects are not
 * followed: a webhook URL that redirects is a misconfiguration and could bypass the URL guard.
 */
export const postJson: PostJson = async (url, body, headers, timeoutMs) => {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await fetch(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'user-agent': 'tally-billing-webhooks/0.1', ...headers },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    return { statusCode: response.status, responseExcerpt: text.slice(0, RESPONSE_EXCERPT_CHARS), error: null, durationMs: elapsed() };
  } catch (error) {
    const e = error as Error & { cause?: { code?: string; message?: string } };
    const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError';
    const reason = timedOut ? `timeout after ${timeoutMs} ms` : (e.cause?.code ?? e.cause?.message ?? e.message);
    return { statusCode: null, responseExcerpt: null, error: reason, durationMs: elapsed() };
  }
};
