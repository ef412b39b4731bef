import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { lookupAll, type LookupAll } from './url-guard.js';

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

export interface PostOptions {
  /**
   * Asked about every address the host name resolves to, at connect time: a reason refuses the
   * connection. The address checked is the one dialled, so a DNS answer that changed since the
   * URL was checked (rebinding) cannot slip through.
   */
  refuseAddress?: (address: string) => string | undefined;
  /** How host names resolve (every address); tests pass their own. */
  lookup?: LookupAll;
}

export type PostJson = (url: string, body: string, headers: Record<string, string>, timeoutMs: number, options?: PostOptions) => Promise<PostOutcome>;

export const RESPONSE_EXCERPT_CHARS = 1000;
/** A refusal of `refuseAddress`, told apart from network errors. */
const ADDRESS_REFUSED = 'ADDRESS_REFUSED';

/** node's `lookup` option, resolving with `resolve` and refusing what `refuseAddress` refuses. */
function guardedLookup(options: PostOptions): LookupFunction {
  const resolve = options.lookup ?? lookupAll;
  return (hostname, lookupOptions, callback) => {
    const fail = (error: NodeJS.ErrnoException) => (lookupOptions.all ? callback(error, []) : callback(error, '', 0));
    resolve(hostname).then((all) => {
      const addresses = lookupOptions.family === 4 || lookupOptions.family === 6 ? all.filter((a) => isIP(a) === lookupOptions.family) : all;
      const refused = options.refuseAddress ? addresses.map(options.refuseAddress).find((reason) => reason !== undefined) : undefined;
      if (refused) return fail(Object.assign(new Error(refused), { code: ADDRESS_REFUSED }));
      if (addresses.length === 0) return fail(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }));
      if (lookupOptions.all) return callback(null, addresses.map((address) => ({ address, family: isIP(address) })));
      return callback(null, addresses[0]!, isIP(addresses[0]!));
    }, (error: NodeJS.ErrnoException) => fail(error));
  };
}

/**
 * POSTs a JSON body with a hard timeout covering connect, headers and body. Redirects are not
 * followed: a webhook URL that redirects is a misconfiguration and could bypass the URL guard.
 * node:http rather than fetch, for the `lookup` hook that checks the address actually dialled.
 */
export const postJson: PostJson = (url, body, headers, timeoutMs, options = {}) =>
  new Promise<PostOutcome>((resolve) => {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let settled = false;
    const finish = (outcome: Omit<PostOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: elapsed() });
    };
    const failed = (reason: string) => finish({ statusCode: null, responseExcerpt: null, error: reason });
    const target = new URL(url);
    const request = (target.protocol === 'https:' ? https : http).request(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'tally-billing-webhooks/0.1', 'content-length': String(Buffer.byteLength(body)), ...headers },
      lookup: guardedLookup(options),
    }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        // only the start is kept; the rest is read and dropped so the connection finishes cleanly
        if (size < RESPONSE_EXCERPT_CHARS * 4) chunks.push(chunk);
        size += chunk.length;
      });
      response.on('end', () => finish({ statusCode: response.statusCode ?? null, responseExcerpt: Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_EXCERPT_CHARS), error: null }));
      response.on('error', (error) => failed(error.message));
    });
    const timer = setTimeout(() => {
      failed(`timeout after ${timeoutMs} ms`);
      request.destroy();
    }, timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => failed(error.code === ADDRESS_REFUSED ? `refused: ${error.message}` : (error.code ?? error.message)));
    request.end(body);
  });
