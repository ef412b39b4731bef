import type { FastifyReply } from 'fastify';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Every interpolated value goes through this: pages never emit unescaped input. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** Marks trusted markup built from escaped parts. */
export interface Html {
  readonly html: string;
}
export const raw = (html: string): Html => ({ html });

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((value, i) => {
    const part = Array.isArray(value) ? value.map((v) => (typeof v === 'object' && v && 'html' in v ? (v as Html).html : esc(v))).join('') : typeof value === 'object' && value && 'html' in value ? (value as Html).html : esc(value);
    out += part + strings[i + 1]!;
  });
  return raw(out);
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}
label{display:block;margin-top:1rem;font-weight:600}input,select{font:inherit;padding:.4rem;width:100%;box-sizing:border-box}
button{font:inherit;margin-top:1rem;margin-right:.5rem;padding:.5rem 1rem;cursor:pointer}
.error{border:2px solid #b00020;padding:.5rem 1rem;color:#b00020}fieldset{margin-top:1rem}
fieldset label{display:inline;font-weight:normal}fieldset input{width:auto}:focus{outline:3px solid #1a73e8}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
table{border-collapse:collapse;width:100%;margin-top:.5rem}caption{text-align:left;font-weight:600}
th,td{text-align:left;vertical-align:middle;padding:.3rem .5rem;border-bottom:1px solid #ccc}td button{margin:0;padding:.2rem .6rem}td code{white-space:nowrap}
code,.secret{font-family:ui-monospace,monospace}.badge{font-size:.8rem;font-weight:600;padding:.1rem .4rem;border-radius:.2rem;vertical-align:middle}
.live{background:#e6f4ea;color:#0d5223}.test{background:#fff4d6;color:#6b4500}section.sandbox{border-left:4px solid #e0a800;padding-left:1rem}
section.production{border-left:4px solid #1e8e3e;padding-left:1rem}.notice{border:2px solid #6b4500;padding:.5rem 1rem;background:#fff8e6}`;

export function page(title: string, body: Html): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>${STYLE}</style></head>
<body><main>
<h1>${esc(title)}</h1>
${body.html}
</main></body>
</html>`;
}

/** An error summary that screen readers announce. */
export function errorBox(message: string | undefined): Html {
  return message ? html`<div class="error" role="alert"><p>${message}</p></div>` : raw('');
}

/**
 * Pages must not be framed (clickjacking on the consent screen, RFC 6749 section 10.13), cached,
 * or leak their URL (onboarding links, codes) in a Referer.
 */
export function sendPage(reply: FastifyReply, status: number, title: string, body: Html, options: { csp?: string } = {}): FastifyReply {
  return reply
    .status(status)
    .header('content-security-policy', options.csp ?? "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'")
    .header('x-frame-options', 'DENY')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .type('text/html; charset=utf-8')
    .send(page(title, body));
}

/** A timestamp to the minute in UTC, as `2026-03-15 12:00`. */
export function utcMinute(at: Date): string {
  return at.toISOString().slice(0, 16).replace('T', ' ');
}

/** After a form POST: 303 so the browser follows with GET (RFC 9700 section 4.12). */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.status(303).header('cache-control', 'no-store').header('location', location).send();
}

/** A local path to return to after sign-in; anything that could leave the site is dropped. */
export function safeReturnTo(value: unknown, fallback = '/account'): string {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return fallback;
  return value;
}
