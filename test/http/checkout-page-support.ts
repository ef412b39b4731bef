// The hosted checkout page driven as a browser would, over inject: its cookie, its CSRF field, form posts.
import type { Harness } from '../harness/app.js';

export interface Opened {
  path: string;
  cookie: string;
  csrf: string;
  body: string;
  status: number;
  headers: Record<string, unknown>;
}

/** Opens the page as a browser would: its cookie and the form's CSRF field. */
export async function open(h: Harness, path: string, cookie?: string): Promise<Opened> {
  const res = await h.service.app.inject({ method: 'GET', url: path, headers: cookie ? { cookie } : {} });
  const setCookie = res.headers['set-cookie'];
  const jar = cookie ?? String(Array.isArray(setCookie) ? setCookie[0] : setCookie ?? '').split(';')[0]!;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1] ?? '';
  return { path, cookie: jar, csrf, body: res.body, status: res.statusCode, headers: res.headers };
}

export function post(h: Harness, page: Opened, suffix: string, fields: Record<string, string>) {
  const payload = new URLSearchParams({ _csrf: page.csrf, ...fields }).toString();
  return h.service.app.inject({ method: 'POST', url: `${page.path}${suffix}`, headers: { cookie: page.cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload });
}

export const dueToday = (body: string) => /data-testid="due-now">([^<]+)</.exec(body)?.[1];
