// The hosted checkout page, `/checkout/{token}` (docs/payments.md, "Hosted checkout"). Server-
// rendered; sandbox and GoCardless tenants get plain HTML forms and no script at all. Stripe
// tenants get Stripe Elements: Stripe's script (https://js.stripe.com/v3) and one inline script
// with this response's nonce, allowed by the CSP on their pages only; the browser posts the
// PaymentMethod id Stripe.js created back to our form, and the server saves and charges it.
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/app.js';
import { errorBox, html, raw, seeOther, sendPage, type Html } from '../../http/html.js';
import { AppError } from '../../kernel/errors.js';
import { formatMinor, parseAmountMinor, type CurrencyCode } from '../../kernel/money.js';
import type { PageCsrf } from './page-csrf.js';
import { PAGE_STYLE, sandboxCardFields } from './pay-page.js';
import { elementsForm, newNonce, pageCsp } from './stripe-elements.js';
import type { CheckoutMethodInput, CheckoutPayments, CheckoutView } from './checkout-payments.js';

const TokenParams = Type.Object({ token: Type.String() });
type Form = Record<string, unknown>;
const field = (form: Form | undefined, name: string) => (typeof form?.[name] === 'string' ? (form[name] as string) : '');

/**
 * No script but Stripe's (and our nonce'd mount script) on Stripe tenants' pages; forms post to
 * this site, whose redirects may go on to the session's success and cancel URLs (Chromium applies
 * form-action to a form's redirects); never framed.
 */
function cspFor(view: CheckoutView | undefined, nonce: string | null): string {
  const targets = new Set<string>(["'self'"]);
  for (const url of [view?.session.success_url, view?.session.cancel_url]) if (url) targets.add(new URL(url).origin);
  return pageCsp([...targets].join(' '), nonce);
}

const money = (minor: bigint, currency: string) => `${formatMinor(minor, currency as CurrencyCode)} ${currency}`;
const PERIODS: Record<string, string> = { MONTHLY: 'monthly', QUARTERLY: 'quarterly', SEMIANNUAL: 'every 6 months', ANNUAL: 'yearly', ONE_TIME: 'once' };

function offer(view: CheckoutView): Html {
  const p = view.prepared!;
  const currency = p.row.currency;
  const first = view.firstInvoice;
  const trial = p.row.trial_duration_days
    ? `${p.row.trial_duration_days} days${p.row.trial_is_free ? ', free' : ''} (until ${p.row.trial_end_date})`
    : 'None';
  const components = [...p.components, ...p.addOns].map((c) => html`<li>${c.name} <span class="hint">(${PERIODS[c.period] ?? c.period.toLowerCase()})</span></li>`);
  const lines = first
    ? first.lines.map((l) => html`<tr><td>${l.name}${l.quantity && l.quantity !== '1' ? ` × ${l.quantity}` : ''}</td><td>${l.start_date} – ${l.end_date}</td><td>${money(l.amount_minor, currency)}</td></tr>`)
    : [];
  const invoiceFacts = first
    ? html`<table><caption>First invoice, ${first.invoice.invoice_date}</caption><thead><tr><th>Item</th><th>Period</th><th>Amount</th></tr></thead><tbody>${lines}</tbody></table>
<dl class="facts">
<dt>Subtotal</dt><dd>${money(first.invoice.subtotal_minor, currency)}</dd>
${first.invoice.discount_minor > 0n ? html`<dt>Discount</dt><dd>−${money(first.invoice.discount_minor, currency)}</dd>` : raw('')}
<dt>Tax</dt><dd>${money(first.invoice.tax_minor, currency)}${first.invoice.tax_inclusive ? ' (included)' : ''}</dd>
<dt>Total with tax</dt><dd>${money(first.invoice.total_minor, currency)}</dd>
</dl>`
    : html`<p>Nothing is invoiced for this plan yet.</p>`;
  return html`<dl class="facts">
<dt>Plan</dt><dd>${p.version.planName} <span class="hint">(version ${p.version.version})</span></dd>
<dt>Starts</dt><dd>${p.row.start_date}</dd>
<dt>Trial</dt><dd>${trial}</dd>
${view.session.coupon_code ? html`<dt>Coupon</dt><dd>${view.session.coupon_code}</dd>` : raw('')}
</dl>
<h2>Includes</h2><ul>${components}</ul>
<h2>Price</h2>${invoiceFacts}
<p>Due today: <span class="amount" data-testid="due-now">${money(view.dueNowMinor, currency)}</span></p>`;
}

function couponForm(view: CheckoutView, token: string, csrf: string, form: Form | undefined): Html {
  const value = field(form, 'coupon_code') || (view.session.coupon_code ?? '');
  return html`<form method="post" action="/checkout/${encodeURIComponent(token)}/coupon" class="coupon">
<input type="hidden" name="_csrf" value="${csrf}">
<label for="coupon_code">Coupon code</label>
<input id="coupon_code" name="coupon_code" value="${value}" autocomplete="off" placeholder="SPRING25">
<button type="submit">Apply coupon</button>
</form>`;
}

function payForm(view: CheckoutView, token: string, csrf: string, nonce: string | null): Html {
  const currency = view.prepared!.row.currency;
  const label = view.dueNowMinor > 0n ? `Pay ${money(view.dueNowMinor, currency)} and subscribe` : 'Save and start subscription';
  const shown = html`<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="shown_amount" value="${formatMinor(view.dueNowMinor, currency as CurrencyCode)}">`;
  const action = `/checkout/${encodeURIComponent(token)}`;
  const free = view.dueNowMinor === 0n ? html`<p class="hint">Nothing is charged today; the method is saved for the invoices to come.</p>` : raw('');
  if (view.offered.card && view.provider === 'sandbox') {
    return html`<form method="post" action="${action}">${shown}<fieldset><legend>Card</legend>${sandboxCardFields()}</fieldset>${free}<button type="submit">${label}</button></form>`;
  }
  if (view.offered.card && view.provider === 'stripe' && view.publishableKey && nonce) {
    return elementsForm({ action, publishableKey: view.publishableKey, nonce, before: shown, after: free, submitLabel: label });
  }
  if (view.offered.directDebit) {
    return html`<form method="post" action="${action}">${shown}<fieldset><legend>Direct debit</legend>
<label for="iban">IBAN</label><input id="iban" name="iban" autocomplete="off" placeholder="DE89 3704 0044 0532 0130 00">
<label for="account_holder_name">Account holder</label><input id="account_holder_name" name="account_holder_name" autocomplete="name">
<p class="hint">By paying you authorise the seller to debit this account.</p></fieldset>${free}<button type="submit">${label}</button></form>`;
  }
  return html`<p role="status">No online payment method is offered for this checkout. Contact the seller to complete your subscription.</p>`;
}

function cancelForm(token: string, csrf: string): Html {
  return html`<form method="post" action="/checkout/${encodeURIComponent(token)}/cancel"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit" class="secondary">Cancel</button></form>`;
}

function closed(view: CheckoutView): { status: number; title: string; body: Html } {
  const s = view.session;
  if (s.status === 'COMPLETED') {
    return { status: 200, title: 'Subscription started', body: html`<p class="paid" role="status">This checkout is complete. Thank you.</p>${s.success_url ? html`<p><a href="${s.success_url}">Continue</a></p>` : raw('')}` };
  }
  if (s.status === 'CANCELLED') return { status: 200, title: 'Checkout cancelled', body: html`<p role="status">This checkout was cancelled; nothing was charged.</p>` };
  return { status: 410, title: 'Checkout expired', body: html`<div class="error" role="alert"><p>This checkout link expired${s.expires_at ? ` on ${s.expires_at.toISOString().slice(0, 16).replace('T', ' ')} UTC` : ''}. Nothing was charged.</p><p>Ask the seller for a new link.</p></div>` };
}

export function checkoutPageRoutes(deps: { pages: CheckoutPayments; csrf: PageCsrf }) {
  const { pages, csrf } = deps;

  const invalid = (reply: FastifyReply) =>
    sendPage(reply, 404, 'Checkout link not valid', html`<div class="error" role="alert"><p>This checkout link is invalid.</p><p>Ask the seller for a new link.</p></div>`, { csp: cspFor(undefined, null) });

  function render(request: FastifyRequest, reply: FastifyReply, view: CheckoutView, token: string, status = 200, error?: string, form?: Form): FastifyReply {
    if (view.session.status !== 'CREATED' && view.session.status !== 'AWAITING_PAYMENT') {
      const page = closed(view);
      return sendPage(reply, page.status, page.title, html`${PAGE_STYLE}${page.body}`, { csp: cspFor(view, null) });
    }
    const title = view.prepared ? `Subscribe to ${view.prepared.version.planName}` : 'Checkout';
    if (!view.prepared) return sendPage(reply, status === 200 ? 409 : status, title, html`${PAGE_STYLE}${errorBox(view.priceError ?? 'This offer cannot be taken.')}`, { csp: cspFor(view, null) });
    const token_ = csrf.issue(request, reply, token);
    const stripe = view.provider === 'stripe' && view.offered.card && view.publishableKey !== null;
    const nonce = stripe ? newNonce() : null;
    const processing = view.session.status === 'AWAITING_PAYMENT' && view.lastAttempt?.status === 'PENDING';
    const action = processing
      ? html`<p role="status">Your payment is being processed. Reload this page in a minute to see whether it went through.</p>`
      : html`${couponForm(view, token, token_, form)}<section aria-labelledby="pay"><h2 id="pay">Payment</h2>${errorBox(error)}${payForm(view, token, token_, nonce)}</section>${cancelForm(token, token_)}`;
    return sendPage(reply, status, title, html`${PAGE_STYLE}${offer(view)}${processing ? errorBox(error) : raw('')}${action}`, { csp: cspFor(view, nonce) });
  }

  /** The page's answer to a client mistake (4xx AppError) is the page again with the message; anything else propagates. */
  async function again(request: FastifyRequest, reply: FastifyReply, token: string, error: unknown, form?: Form): Promise<FastifyReply> {
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    const fresh = await pages.view(token);
    if (!fresh) return invalid(reply);
    // a second submit that lost the race to a payment which completed the session goes where the winner went
    if (fresh.session.status === 'COMPLETED' && fresh.session.success_url) return seeOther(reply, fresh.session.success_url);
    return render(request, reply, fresh, token, error.status, error.message.replace(/^the payment method was refused by \w+: /, ''), form);
  }

  function methodOf(form: Form | undefined): CheckoutMethodInput {
    if (field(form, 'payment_method_id')) return { stripePaymentMethodId: field(form, 'payment_method_id') };
    if (field(form, 'iban')) return { iban: field(form, 'iban'), holderName: field(form, 'account_holder_name') || null };
    return { cardNumber: field(form, 'card_number') };
  }

  return (app: App) => {
    const page = { config: { public: true }, schema: { hide: true, params: TokenParams } } as const;

    app.get('/checkout/:token', page, async (request, reply) => {
      const view = await pages.view(request.params.token);
      return view ? render(request, reply, view, request.params.token) : invalid(reply);
    });

    app.post('/checkout/:token', page, async (request, reply) => {
      const token = request.params.token;
      const form = request.body as Form | undefined;
      const view = await pages.view(token);
      if (!view) return invalid(reply);
      if (view.session.status === 'COMPLETED' && view.session.success_url) return seeOther(reply, view.session.success_url);
      if (!csrf.valid(request, token, form?._csrf)) return render(request, reply, view, token, 403, 'This form expired or did not come from this site. Reload the page and try again.');
      let shown: bigint | null = null;
      if (field(form, 'shown_amount') && view.prepared) {
        try {
          shown = parseAmountMinor(field(form, 'shown_amount'), view.prepared.row.currency as CurrencyCode);
        } catch {
          shown = -1n;
        }
      }
      let outcome;
      try {
        outcome = await pages.pay(view, methodOf(form), shown);
      } catch (error) {
        return again(request, reply, token, error, form);
      }
      if (outcome.kind === 'COMPLETED') return seeOther(reply, outcome.session.success_url ?? `/checkout/${encodeURIComponent(token)}`);
      const fresh = (await pages.view(token))!;
      if (outcome.kind === 'DECLINED') return render(request, reply, fresh, token, 402, outcome.message, form);
      return render(request, reply, fresh, token, 202);
    });

    app.post('/checkout/:token/coupon', page, async (request, reply) => {
      const token = request.params.token;
      const form = request.body as Form | undefined;
      const view = await pages.view(token);
      if (!view) return invalid(reply);
      if (!csrf.valid(request, token, form?._csrf)) return render(request, reply, view, token, 403, 'This form expired or did not come from this site. Reload the page and try again.');
      try {
        await pages.applyCoupon(view, field(form, 'coupon_code'));
      } catch (error) {
        return again(request, reply, token, error, form);
      }
      return seeOther(reply, `/checkout/${encodeURIComponent(token)}`);
    });

    app.post('/checkout/:token/cancel', page, async (request, reply) => {
      const token = request.params.token;
      const form = request.body as Form | undefined;
      const view = await pages.view(token);
      if (!view) return invalid(reply);
      if (!csrf.valid(request, token, form?._csrf)) return render(request, reply, view, token, 403, 'This form expired or did not come from this site. Reload the page and try again.');
      let cancelled;
      try {
        cancelled = await pages.cancel(view);
      } catch (error) {
        return again(request, reply, token, error);
      }
      return seeOther(reply, cancelled.cancel_url ?? `/checkout/${encodeURIComponent(token)}`);
    });
  };
}
