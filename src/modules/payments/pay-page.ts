// The hosted invoice pay page, `GET/POST /pay/{token}` (docs/payments.md, "Pages"). Server-rendered,
// no JavaScript for sandbox tenants: the sandbox card form is a plain HTML form with a CSRF field.
// Stripe tenants whose connection has a publishable key also get Stripe Elements for a new card
// (stripe-elements.ts: Stripe's script allowed by this response's nonce, on their pages only).
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/app.js';
import { errorBox, html, raw, seeOther, sendPage, type Html } from '../../http/html.js';
import { AppError } from '../../kernel/errors.js';
import { formatMinor, type CurrencyCode } from '../../kernel/money.js';
import type { InvoicesService } from '../invoices/index.js';
import type { PageCsrf } from './page-csrf.js';
import { payable } from './pay-links.js';
import type { PayPageService, PayView } from './pay-page-service.js';
import type { AttemptRow, PaymentMethodRow } from './repository.js';
import { elementsForm, newNonce, pageCsp } from './stripe-elements.js';

const TokenParams = Type.Object({ token: Type.String() });
type Form = Record<string, unknown>;
const field = (form: Form | undefined, name: string) => (typeof form?.[name] === 'string' ? (form[name] as string) : '');

/** No script, forms post to this site only, never framed. */
const CSP = pageCsp("'self'", null);
export const PAGE_STYLE = raw(`<style>dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dl.facts dt{font-weight:600}
dl.facts dd{margin:0}.amount{font-size:1.4rem;font-weight:700}.paid{border:2px solid #1e8e3e;background:#e6f4ea;color:#0d5223;padding:.5rem 1rem}
.row{display:flex;gap:1rem}.notice{border:2px solid #6b4500;background:#fff8e6;padding:.5rem 1rem}.row label{flex:1}.row input{font-weight:normal}.hint{color:#555;font-size:.9rem}fieldset label{display:block;margin:.3rem 0}</style>`);

const money = (minor: bigint, currency: string) => `${formatMinor(minor, currency as CurrencyCode)} ${currency}`;
/** How a saved method is named to the customer: "Visa ending 4242, expires 12/2031", "Direct debit (sepa_core), Bank ending 00". */
export const methodLabel = (m: PaymentMethodRow) =>
  m.method_type === 'DIRECT_DEBIT'
    ? `Direct debit${m.mandate_scheme ? ` (${m.mandate_scheme})` : ''}${m.bank_name ? `, ${m.bank_name}` : ''}, account ending ${m.account_number_ending ?? '??'}`
    : `${(m.card_brand ?? 'card').replace(/^./, (c) => c.toUpperCase())} ending ${m.card_last4 ?? '????'}${m.exp_month && m.exp_year ? `, expires ${String(m.exp_month).padStart(2, '0')}/${m.exp_year}` : ''}`;

/** The sandbox's card fields: number, expiry, CVC (the sandbox only reads the number). */
export function sandboxCardFields(): Html {
  return html`<label for="card_number">Card number</label>
<input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242">
<div class="row"><label>Expiry (MM/YY)<input name="card_exp" autocomplete="cc-exp" placeholder="12/34"></label>
<label>CVC<input name="card_cvc" inputmode="numeric" autocomplete="cc-csc" placeholder="123"></label></div>
<p class="hint">Sandbox: no money moves. 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined, 4000 0025 0000 3155 asks for authentication.</p>`;
}

function details(view: PayView, token: string): Html {
  const { invoice } = view;
  const seller = String(invoice.seller_details.legal_name ?? '');
  const buyer = String(invoice.customer_details.legal_name ?? invoice.customer_details.name ?? '');
  return html`<dl class="facts">
<dt>From</dt><dd>${seller}</dd>
<dt>Billed to</dt><dd>${buyer}</dd>
<dt>Invoice</dt><dd>${invoice.invoice_number ?? invoice.id}</dd>
<dt>Invoice date</dt><dd>${invoice.invoice_date}</dd>
<dt>Due date</dt><dd>${invoice.due_date ?? '—'}</dd>
<dt>Total</dt><dd>${money(invoice.total_minor, invoice.currency)}</dd>
<dt>Amount due</dt><dd class="amount">${money(invoice.amount_due_minor - invoice.amount_paid_minor, invoice.currency)}</dd>
</dl>
<p><a href="/pay/${encodeURIComponent(token)}/pdf" download>Download the invoice (PDF)</a></p>`;
}

/** Whether the page offers a new card through Stripe Elements (a nonce is then needed for its scripts). */
const offersElements = (view: PayView) => view.provider === 'stripe' && view.publishableKey !== null;

function payForm(view: PayView, token: string, csrf: string, form: Form | undefined, nonce: string | null): Html {
  if (view.provider === null) {
    return html`<p>Online payment is not available for this invoice. Please pay by bank transfer as the invoice says, quoting invoice ${view.invoice.invoice_number ?? ''}.</p>`;
  }
  const elements = offersElements(view) && nonce !== null;
  if (view.provider !== 'sandbox' && !elements) {
    // a Stripe connection without a publishable key (or GoCardless): only saved methods can pay here
    if (view.methods.length === 0) return html`<p>Online card payment is not available yet for this invoice. Please pay by bank transfer as the invoice says.</p>`;
  }
  const takesNew = view.provider === 'sandbox' || elements;
  const chosen = field(form, 'method') || view.defaultMethodId || (view.methods[0]?.id ?? 'new');
  const saved = view.methods.map((m) => html`<label><input type="radio" name="method" value="${m.id}"${raw(chosen === m.id ? ' checked' : '')}> ${methodLabel(m)}</label>`);
  const newCard = takesNew
    ? html`<label><input type="radio" name="method" value="new"${raw(chosen === 'new' || view.methods.length === 0 ? ' checked' : '')}> A new card</label>`
    : raw('');
  const due = money(view.invoice.amount_due_minor - view.invoice.amount_paid_minor, view.invoice.currency);
  const action = `/pay/${encodeURIComponent(token)}`;
  const choice = html`<input type="hidden" name="_csrf" value="${csrf}">
<fieldset><legend>Pay with</legend>${saved}${newCard}</fieldset>`;
  if (elements) return elementsForm({ action, publishableKey: view.publishableKey!, nonce: nonce!, before: choice, legend: 'New card', submitLabel: `Pay ${due}` });
  return html`<form method="post" action="${action}">
${choice}
${view.provider === 'sandbox' ? sandboxCardFields() : raw('')}
<button type="submit">Pay ${due}</button>
</form>`;
}

const authenticationPath = (token: string, attemptId: string) => `/pay/${encodeURIComponent(token)}/authenticate/${encodeURIComponent(attemptId)}`;

/** A payment of this invoice waits for the customer's authentication: where to complete it. */
function authenticationNotice(view: PayView, token: string): Html {
  const attempt = view.needsAuthentication;
  if (!attempt) return raw('');
  return html`<p class="notice" role="status">Your bank asks you to confirm the payment of ${money(attempt.amount_minor, attempt.currency)}.
<a href="${authenticationPath(token, attempt.id)}">Complete the authentication</a>, or pay with another card below.</p>`;
}

/** The sandbox's authentication step (what Stripe's test 3-D Secure page is): approve or fail, nothing else. */
function authenticationStep(view: PayView, token: string, attempt: AttemptRow, csrfField: string): Html {
  const method = view.methods.find((m) => m.id === attempt.payment_method_id);
  const form = (outcome: string, label: string) => html`<form method="post" action="${authenticationPath(token, attempt.id)}" class="inline">
<input type="hidden" name="_csrf" value="${csrfField}"><input type="hidden" name="outcome" value="${outcome}"><button type="submit">${label}</button></form>`;
  return html`<section aria-labelledby="authenticate"><h2 id="authenticate">Authentication by your bank</h2>
<p class="hint">Sandbox: this page stands in for your bank's authentication (3-D Secure). No money moves.</p>
<dl class="facts"><dt>Amount</dt><dd class="amount">${money(attempt.amount_minor, attempt.currency)}</dd>
<dt>Card</dt><dd>${method ? methodLabel(method) : 'your card'}</dd></dl>
<div class="row">${form('approve', 'Complete authentication')}${form('fail', 'Fail authentication')}</div></section>`;
}

export function payPageRoutes(deps: { pages: PayPageService; csrf: PageCsrf; invoicePdf: InvoicesService['pdf'] }) {
  const { pages, csrf } = deps;

  const invalid = (reply: FastifyReply) =>
    sendPage(reply, 404, 'Payment link not valid', html`<div class="error" role="alert"><p>This payment link is invalid or was replaced by a newer one.</p>
<p>Ask the company that bills you for a new link.</p></div>`, { csp: CSP });

  function render(request: FastifyRequest, reply: FastifyReply, view: PayView, token: string, status = 200, error?: string, form?: Form): FastifyReply {
    const { invoice } = view;
    const title = `Invoice ${invoice.invoice_number ?? ''} from ${String(invoice.seller_details.legal_name ?? '')}`;
    let action: Html;
    let nonce: string | null = null;
    if (invoice.payment_status === 'PAID') action = html`<p class="paid" role="status">This invoice is paid${invoice.paid_at ? ` (${invoice.paid_at.toISOString().slice(0, 10)})` : ''}. Thank you.</p>`;
    else if (!payable(invoice)) action = html`<p role="status">This invoice is ${invoice.status.toLowerCase()}: there is nothing to pay.</p>`;
    else {
      nonce = offersElements(view) ? newNonce() : null;
      action = html`<section aria-labelledby="pay"><h2 id="pay">Pay this invoice</h2>${errorBox(error)}${authenticationNotice(view, token)}${payForm(view, token, csrf.issue(request, reply, token), form, nonce)}</section>`;
    }
    return sendPage(reply, status, title, html`${PAGE_STYLE}${details(view, token)}${action}`, { csp: pageCsp("'self'", nonce) });
  }

  return (app: App) => {
    const page = { config: { public: true }, schema: { hide: true, params: TokenParams } } as const;

    app.get('/pay/:token', page, async (request, reply) => {
      const view = await pages.view(request.params.token);
      return view ? render(request, reply, view, request.params.token) : invalid(reply);
    });

    app.get('/pay/:token/pdf', page, async (request, reply) => {
      const view = await pages.view(request.params.token);
      if (!view) return invalid(reply);
      const { content, filename } = await deps.invoicePdf(view.tenantId, view.invoice.id);
      return reply.type('application/pdf').header('cache-control', 'no-store').header('referrer-policy', 'no-referrer')
        .header('content-disposition', `attachment; filename="${filename}"`).send(content as unknown as string);
    });

    const step = { config: { public: true }, schema: { hide: true, params: Type.Object({ token: Type.String(), attempt_id: Type.String() }) } } as const;

    app.get('/pay/:token/authenticate/:attempt_id', step, async (request, reply) => {
      const { token, attempt_id: attemptId } = request.params;
      const view = await pages.view(token);
      if (!view) return invalid(reply);
      const waiting = view.needsAuthentication;
      // answered already, or not this invoice's: the pay page says where things stand
      if (!waiting || waiting.id !== attemptId) return seeOther(reply, `/pay/${encodeURIComponent(token)}`);
      const title = `Confirm your payment to ${String(view.invoice.seller_details.legal_name ?? '')}`;
      return sendPage(reply, 200, title, html`${PAGE_STYLE}${authenticationStep(view, token, waiting, csrf.issue(request, reply, token))}`, { csp: CSP });
    });

    app.post('/pay/:token/authenticate/:attempt_id', step, async (request, reply) => {
      const { token, attempt_id: attemptId } = request.params;
      const form = request.body as Form | undefined;
      const view = await pages.view(token);
      if (!view) return invalid(reply);
      if (!csrf.valid(request, token, form?._csrf)) return render(request, reply, view, token, 403, 'This form expired or did not come from this site. Reload the page and try again.');
      const outcome = field(form, 'outcome');
      if (outcome !== 'approve' && outcome !== 'fail') return render(request, reply, view, token, 400, 'outcome must be approve or fail');
      let attempt;
      try {
        attempt = await pages.authenticate(view, attemptId, outcome === 'approve');
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        return render(request, reply, (await pages.view(token))!, token, error.status, error.message);
      }
      if (attempt.status === 'SUCCEEDED') return seeOther(reply, `/pay/${encodeURIComponent(token)}`);
      return render(request, reply, (await pages.view(token))!, token, 402, `${attempt.failure_message ?? 'The authentication failed.'} No money was taken; try again or use another card.`);
    });

    app.post('/pay/:token', page, async (request, reply) => {
      const token = request.params.token;
      const form = request.body as Form | undefined;
      const view = await pages.view(token);
      if (!view) return invalid(reply);
      if (!csrf.valid(request, token, form?._csrf)) return render(request, reply, view, token, 403, 'This form expired or did not come from this site. Reload the page and try again.');
      const method = field(form, 'method') || 'new';
      let attempt;
      try {
        attempt = await pages.pay(view, method !== 'new' ? { methodId: method }
          : view.provider === 'stripe' ? { stripePaymentMethodId: field(form, 'payment_method_id') } : { cardNumber: field(form, 'card_number') });
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        return render(request, reply, (await pages.view(token))!, token, error.status, error.message.replace(/^the payment method was refused by \w+: /, ''), form);
      }
      if (attempt.status === 'SUCCEEDED') return seeOther(reply, `/pay/${encodeURIComponent(token)}`);
      const fresh = (await pages.view(token))!;
      if (attempt.status === 'FAILED') return render(request, reply, fresh, token, 402, `${attempt.failure_message ?? 'The payment failed.'} No money was taken; try another card.`, form);
      if (attempt.status === 'REQUIRES_ACTION' && attempt.provider === 'sandbox') return seeOther(reply, authenticationPath(token, attempt.id));
      if (attempt.status === 'REQUIRES_ACTION') {
        // Stripe's 3-D Secure runs in Stripe.js on the customer's side (handleCardAction), which this page does not do yet (docs/payments.md, "Not yet")
        return render(request, reply, fresh, token, 402, 'Your bank asks you to confirm this payment (authentication), which this page cannot do yet. No money was taken; try another card.', form);
      }
      return render(request, reply, fresh, token, 202, 'Your payment is being processed. Reload this page in a minute to see whether it went through.');
    });
  };
}
