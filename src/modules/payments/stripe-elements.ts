// Stripe Elements on our hosted pages (docs/payments.md, "Stripe Elements"): the checkout page, the
// invoice pay page and the portal's payment-methods form. One place for the card form's markup,
// the mount script and the CSP that lets Stripe's script run: only on Stripe tenants' pages, with
// a nonce new for each response. The browser posts the PaymentMethod id Stripe.js created as
// `payment_method_id`; card data never reaches this server.
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/pool.js';
import { html, raw, type Html } from '../../http/html.js';
import { badRequest } from '../../kernel/errors.js';
import type { Providers } from './providers.js';
import * as repo from './repository.js';

const STRIPE_JS = 'https://js.stripe.com/v3';
const PAYMENT_METHOD_ID = /^pm_[A-Za-z0-9_]{3,}$/;

/** A nonce for one response's scripts. */
export const newNonce = (): string => randomBytes(16).toString('base64');

/**
 * Our pages' CSP: no script, forms post to `formAction` only, never framed; with a nonce, also
 * what Stripe documents for Elements: its script (and our nonce'd mount script), its frames, and
 * its API from the page.
 */
export function pageCsp(formAction: string, nonce: string | null): string {
  const base = `style-src 'unsafe-inline'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`;
  if (nonce === null) return `default-src 'none'; ${base}`;
  return `default-src 'none'; script-src https://js.stripe.com 'nonce-${nonce}'; frame-src https://js.stripe.com https://hooks.stripe.com; connect-src https://api.stripe.com; img-src https://*.stripe.com; ${base}`;
}

/** The tenant's Stripe publishable key when its provider is Stripe and the connection has one (Elements can be shown), else null. */
export async function elementsKeyOf(db: Queryable, providers: Providers, tenantId: string): Promise<string | null> {
  if ((await providers.forTenant(db, tenantId))?.name !== 'stripe') return null;
  return (await repo.listConnections(db, tenantId)).find((c) => c.provider === 'stripe')?.publishable_key ?? null;
}

/** The posted `payment_method_id`, refused (400) unless it looks like a Stripe PaymentMethod id. */
export function checkedPaymentMethodId(value: string): string {
  if (!PAYMENT_METHOD_ID.test(value)) throw badRequest('payment_method_id must be the PaymentMethod id Stripe.js created, e.g. pm_1Q2w3E...');
  return value;
}

/**
 * Mounts Elements' card field and, on submit, puts the PaymentMethod id Stripe.js creates in the
 * hidden field and submits. A form whose checked `method` radio is a saved method (not "new")
 * submits as it is. Stripe.js is the only thing that sees card data.
 */
const STRIPE_MOUNT = `(function(){var f=document.getElementById('stripe-form');var s=Stripe(f.dataset.publishableKey);var e=s.elements().create('card');e.mount('#card-element');
f.addEventListener('submit',function(ev){var m=f.querySelector('input[name=method]:checked');if(m&&m.value!=='new')return;if(document.getElementById('payment_method_id').value)return;ev.preventDefault();
s.createPaymentMethod({type:'card',card:e}).then(function(r){if(r.error){document.getElementById('card-errors').textContent=r.error.message;return;}
document.getElementById('payment_method_id').value=r.paymentMethod.id;f.submit();});});})();`;

/**
 * A form posting to `action` with Elements' card field: `before` goes first (CSRF field, headings,
 * saved methods), `after` after the card (hints, checkboxes), then the submit button and the scripts.
 * Only one such form per page (its ids are fixed).
 */
export function elementsForm(o: { action: string; publishableKey: string; nonce: string; before: Html; after?: Html; legend?: string; submitLabel: string; labelledBy?: string }): Html {
  const labelled = o.labelledBy ? raw(` aria-labelledby="${o.labelledBy}"`) : raw('');
  return html`<form method="post" action="${o.action}" id="stripe-form" data-publishable-key="${o.publishableKey}"${labelled}>${o.before}
<input type="hidden" name="payment_method_id" id="payment_method_id">
<fieldset><legend>${o.legend ?? 'Card'}</legend><div id="card-element"></div><p id="card-errors" role="alert" class="hint"></p></fieldset>${o.after ?? raw('')}
<button type="submit">${o.submitLabel}</button></form>
<script src="${STRIPE_JS}" nonce="${o.nonce}"></script>
<script nonce="${o.nonce}">${raw(STRIPE_MOUNT)}</script>`;
}
