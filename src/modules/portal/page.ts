import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { AppError } from '../../kernel/errors.js';
import type { PortalTokensService } from './tokens-service.js';
import type { PortalViewsService } from './views-service.js';
import { customerToWire, invoiceToWire, subscriptionToWire, usageToWire } from './schemas.js';
import { noStore, presentedToken } from './routes.js';
import { pageCsp } from '../payments/index.js';
import { methodsSection, NOTICES, payCell, paymentMethodRoutes, type PortalPayments, type RenderPortal } from './payments.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Every interpolated value goes through this: the page never emits unescaped data. */
const esc = (value: unknown): string => String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const STYLE = `body{font-family:system-ui,sans-serif;max-width:56rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}
table{border-collapse:collapse;width:100%;margin-bottom:1.5rem}th,td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid #ccc}
td.num{text-align:right;font-variant-numeric:tabular-nums}.error{border:2px solid #b00020;padding:.5rem 1rem;color:#b00020}
a{color:#0b57d0}:focus{outline:3px solid #1a73e8}.notice{border:2px solid #1e8e3e;background:#e6f4ea;padding:.5rem 1rem}
a.button,button{font:inherit;display:inline-block;padding:.3rem .8rem;border:1px solid #0b57d0;border-radius:.25rem;background:#0b57d0;color:#fff;text-decoration:none;cursor:pointer}
td form{margin:0}form label{display:block;margin-top:.6rem;font-weight:600}form input{font:inherit;padding:.35rem;width:100%;box-sizing:border-box}
form label.inline{font-weight:normal}form label.inline input{width:auto}.row{display:flex;gap:1rem}.row label{flex:1}.hint{color:#555;font-size:.9rem}form button{margin-top:.8rem}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}`;

function document(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer">
<title>${esc(title)}</title><style>${STYLE}</style></head>
<body><main>
<h1>${esc(title)}</h1>
${body}
</main></body>
</html>`;
}

/** No script (except Stripe's and our nonce'd mount script when the page holds Stripe Elements), forms post to this site only, never framed. */
function send(reply: FastifyReply, status: number, title: string, body: string, nonce: string | null = null): FastifyReply {
  return reply
    .status(status)
    .header('content-security-policy', pageCsp("'self'", nonce))
    .header('x-frame-options', 'DENY')
    .type('text/html; charset=utf-8')
    .send(document(title, body));
}

/** A table with a caption and column headers, so screen readers announce each cell's column. */
function table(caption: string, headers: string[], rows: string[][], numeric: number[] = []): string {
  if (rows.length === 0) return `<p>No ${esc(caption.toLowerCase())}.</p>`;
  const head = headers.map((h) => `<th scope="col">${esc(h)}</th>`).join('');
  const body = rows.map((cells) => `<tr>${cells.map((cell, i) => `<td${numeric.includes(i) ? ' class="num"' : ''}>${cell}</td>`).join('')}</tr>`).join('\n');
  return `<table><caption class="visually-hidden">${esc(caption)}</caption><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/** `GET /portal/customer?token=...`: the customer's usage, subscriptions, invoices (with Pay links) and payment methods, no JavaScript but Stripe Elements' on Stripe tenants. */
export function portalPage(tokens: PortalTokensService, views: PortalViewsService, payments?: PortalPayments) {
  const invalidLink = (reply: FastifyReply) => send(reply, 401, 'Portal link not valid', `<div class="error" role="alert"><p>This portal link is invalid, has expired or was revoked.</p>
<p>Ask the company that bills you for a new link.</p></div>`);

  const render: RenderPortal = async (request, reply, principal, options) => {
    const token = presentedToken(request) ?? '';
    // One after the other: subscriptions and usage both move due subscription statuses first.
    const customer = customerToWire(await views.customer(principal));
    const subscriptions = (await views.subscriptions(principal)).map(subscriptionToWire);
    const usage = (await views.usage(principal)).map(usageToWire);
    const details = (await views.invoices(principal, { per_page: 100 })).data;
    const origin = `${request.protocol}://${request.host}`;
    const payUrls = payments ? await Promise.all(details.map((d) => payments.payUrl(principal.tenantId, d.invoice, origin))) : details.map(() => null);
    const invoices = details.map(invoiceToWire);
    const download = (invoiceId: string, what: 'download' | 'e-invoice' = 'download') => `/api/v1/portal/invoices/${encodeURIComponent(invoiceId)}/${what}?token=${encodeURIComponent(token)}`;
    const usageRows = usage.flatMap((u) => u.usage.map((m) => [esc(u.plan_name), esc(m.metric_name), esc(m.total_value), `${esc(u.period_start)} to ${esc(u.period_end)} (exclusive)`]));
    const query = (request.query ?? {}) as { notice?: unknown };
    const notice = options.status === 200 && typeof query.notice === 'string' ? NOTICES[query.notice] : undefined;
    const banner = options.error
      ? `<div class="error" role="alert"><p>${esc(options.error)}</p></div>`
      : notice ? `<p class="notice" role="status">${esc(notice)}</p>` : '';
    // the forms' outcome shows in their section, where the answer's #payment-methods lands
    const methods = payments ? await methodsSection(payments, principal, token, payments.csrf.issue(request, reply, token), options.form, banner) : { html: '', nonce: null };
    const body = `${payments ? '' : banner}<p>Account: <strong>${esc(customer.name)}</strong>. Credit balance: <strong>${esc(customer.balance)} ${esc(customer.currency)}</strong>.</p>
<section aria-labelledby="usage"><h2 id="usage">Usage this period</h2>
${table('Usage', ['Plan', 'Metric', 'Usage', 'Period'], usageRows, [2])}</section>
<section aria-labelledby="subscriptions"><h2 id="subscriptions">Subscriptions</h2>
${table('Subscriptions', ['Plan', 'Status', 'Current period', 'Next invoice'], subscriptions.map((s) => [
  esc(s.plan_name), esc(s.status), `${esc(s.current_period_start)} to ${esc(s.current_period_end ?? '—')}`, esc(s.next_invoice_date ?? '—'),
]))}</section>
<section aria-labelledby="invoices"><h2 id="invoices">Invoices</h2>
${table('Invoices', ['Number', 'Date', 'Due', 'Total', 'Amount due', 'Payment', 'Pay', 'PDF'], invoices.map((i, index) => [
  esc(i.invoice_number), esc(i.invoice_date), esc(i.due_date ?? '—'), `${esc(i.total)} ${esc(i.currency)}`, `${esc(i.amount_due)} ${esc(i.currency)}`, esc(i.payment_status),
  payCell(i.invoice_number, payUrls[index] ?? null, i.payment_status),
  `<a href="${esc(download(i.id))}" download>Download PDF<span class="visually-hidden"> of invoice ${esc(i.invoice_number)}</span></a>` +
    (i.e_invoice_format ? `<br><a href="${esc(download(i.id, 'e-invoice'))}" download>E-invoice (XML)<span class="visually-hidden"> of invoice ${esc(i.invoice_number)}</span></a>` : ''),
]), [3, 4])}</section>
${methods.html}`;
    return send(reply, options.status, `Billing portal — ${customer.name}`, body, methods.nonce);
  };

  return (app: App) => {
    app.get('/portal/customer', {
      config: { public: true },
      onSend: noStore,
      schema: { hide: true, querystring: Type.Object({ token: Type.Optional(Type.String()), notice: Type.Optional(Type.String()) }) },
    }, async (request, reply) => {
      let principal;
      try {
        principal = await tokens.authenticate(presentedToken(request));
      } catch (error) {
        if (!(error instanceof AppError) || error.status !== 401) throw error;
        return invalidLink(reply);
      }
      return render(request, reply, principal, { status: 200 });
    });
    if (payments) paymentMethodRoutes(tokens, payments, render, invalidLink)(app);
  };
}
