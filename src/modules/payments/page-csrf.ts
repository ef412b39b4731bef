// CSRF protection of the hosted payment pages (no sign-in there): a double-submit cookie. The
// visitor gets a random cookie; each form carries an HMAC of that cookie and the page's token
// under the service secret. Another site can neither read the cookie nor compute the field.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomToken } from '../../kernel/secrets.js';
import { parseCookies, serializeCookie } from '../../http/cookies.js';

export const PAY_COOKIE = 'pay_csrf';
const COOKIE_SHAPE = /^[A-Za-z0-9]{40}$/;

export function createPageCsrf(deps: { secretKey: string; secureCookies: boolean }) {
  const fieldFor = (cookie: string, pageToken: string) => createHmac('sha256', deps.secretKey).update(`pay-csrf:${cookie}:${pageToken}`).digest('base64url');

  /** The form field for this visitor and page, setting the cookie on a first visit. */
  function issue(request: FastifyRequest, reply: FastifyReply, pageToken: string): string {
    let cookie = parseCookies(request.headers.cookie)[PAY_COOKIE];
    if (!cookie || !COOKIE_SHAPE.test(cookie)) {
      cookie = randomToken(40);
      reply.header('set-cookie', serializeCookie(PAY_COOKIE, cookie, { maxAgeSeconds: 86_400, secure: deps.secureCookies || request.protocol === 'https' }));
    }
    return fieldFor(cookie, pageToken);
  }

  function valid(request: FastifyRequest, pageToken: string, presented: unknown): boolean {
    const cookie = parseCookies(request.headers.cookie)[PAY_COOKIE];
    if (!cookie || !COOKIE_SHAPE.test(cookie) || typeof presented !== 'string') return false;
    const expected = Buffer.from(fieldFor(cookie, pageToken));
    const given = Buffer.from(presented);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  return { issue, valid };
}

export type PageCsrf = ReturnType<typeof createPageCsrf>;
