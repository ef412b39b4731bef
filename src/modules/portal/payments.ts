// What the customer portal does with payments (docs/portal.md, "Paying and payment methods"): a
// Pay button on each unpaid invoice (the invoice's hosted pay link, payments' payUrlFor), and the
// customer's saved payment methods: list, add (the sandbox card form on sandbox tenants; IBAN and
// holder for GoCardless; Stripe Elements for Stripe tenants with a publishable key), remove, make default. Every change goes through the payments module's
// service (the same code as the API's payment-method routes); forms carry the hosted pages' CSRF
// field, bound to the portal token.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { esc, raw, seeOther } from '../../http/html.js';
import { AppError } from '../../kernel/errors.js';
import type { ProviderName } from '../../adapters/payments/provider.js';
import type { InvoiceRow } from '../invoices/index.js';
import { checkedPaymentMethodId, elementsForm, methodLabel, newNonce, sandboxCardFields, type PageCsrf, type PaymentMethodRow, type PaymentsService } from '../payments/index.js';
import type { PortalPrincipal, PortalTokensService } from './tokens-service.js';
import { noStore, presentedToken } from './routes.js';

/** Payments as the portal uses it, passed in by the composition root (it holds the module's secret). */
export interface PortalPayments {
  /** The invoice's hosted pay link (payments' payUrlFor), null when it is not payable. */
  payUrl(tenantId: string, invoice: InvoiceRow, origin: string): Promise<string | null>;
  /** The tenant's provider now (which add form to show), null when it has none. */
  providerName(tenantId: string): Promise<ProviderName | null>;
  /** Stripe's publishable key when the tenant's provider is Stripe and its connection has one (payments' elementsKeyOf): the add form is Stripe Elements. */
  elementsKey(tenantId: string): Promise<string | null>;
  methods: Pick<PaymentsService, 'listMethods' | 'attachMethod' | 'detachMethod' | 'updateSettings'>;
  csrf: PageCsrf;
}

/** Messages after a change, by the code in `?notice=` (a fixed list: the query never becomes page text). */
export const NOTICES: Record<string, string> = {
  'method-added': 'Your payment method was saved.',
  'method-removed': 'The payment method was removed.',
  'default-set': 'Your default payment method was changed.',
};

type Form = Record<string, unknown>;
const field = (form: Form | undefined, name: string) => (typeof form?.[name] === 'string' ? (form[name] as string).trim() : '');
const portalPath = (token: string, suffix = '') => `/portal/customer${suffix}?token=${encodeURIComponent(token)}`;

/** The "Pay" cell of an invoice row: a link to its pay page while something is due. */
export function payCell(invoiceNumber: string, payUrl: string | null, paymentStatus: string): string {
  if (payUrl) return `<a class="button" href="${esc(payUrl)}">Pay<span class="visually-hidden"> invoice ${esc(invoiceNumber)}</span></a>`;
  return paymentStatus === 'PAID' ? 'Paid' : '—';
}

/** The add form; a Stripe Elements form needs `nonce` (its scripts'), which the page's CSP then allows. */
function addForm(provider: ProviderName | null, elementsKey: string | null, nonce: string | null, token: string, csrf: string, form: Form | undefined): string {
  const action = esc(portalPath(token, '/payment-methods'));
  const hidden = `<input type="hidden" name="_csrf" value="${esc(csrf)}">`;
  const makeDefault = '<label class="inline"><input type="checkbox" name="set_default" value="true"> Make it my default payment method</label>';
  if (provider === 'sandbox') {
    return `<form method="post" action="${action}" aria-labelledby="add-method">${hidden}
<h3 id="add-method">Add a card</h3>
${sandboxCardFields().html}
${makeDefault}
<button type="submit">Save card</button></form>`;
  }
  if (provider === 'gocardless') {
    return `<form method="post" action="${action}" aria-labelledby="add-method">${hidden}
<h3 id="add-method">Add a bank account (direct debit)</h3>
<label for="iban">IBAN</label><input id="iban" name="iban" autocomplete="off" placeholder="DE89 3704 0044 0532 0130 00" value="${esc(field(form, 'iban'))}">
<label for="account_holder_name">Account holder</label><input id="account_holder_name" name="account_holder_name" autocomplete="name" value="${esc(field(form, 'account_holder_name'))}">
<p class="hint">Saving it authorises the company that bills you to collect its invoices from this account by direct debit (a mandate).</p>
${makeDefault}
<button type="submit">Save bank account</button></form>`;
  }
  if (provider === 'stripe' && elementsKey !== null && nonce !== null) {
    return elementsForm({
      action: portalPath(token, '/payment-methods'), publishableKey: elementsKey, nonce, labelledBy: 'add-method', submitLabel: 'Save card',
      before: raw(`${hidden}\n<h3 id="add-method">Add a card</h3>`), after: raw(makeDefault),
    }).html;
  }
  if (provider === 'stripe') return '<p>Cards cannot be added here: ask the company that bills you.</p>';
  return '<p>Online payment is not available: please pay by bank transfer as your invoices say.</p>';
}

/**
 * The "Payment methods" section: the outcome of the last change (`banner`, where the page jumps to),
 * the saved methods with their actions, then the add form. `nonce` is set when the section holds
 * Stripe Elements (the page's CSP must then allow Stripe's script with it).
 */
export async function methodsSection(payments: PortalPayments, principal: PortalPrincipal, token: string, csrf: string, form?: Form, banner = ''): Promise<{ html: string; nonce: string | null }> {
  const { methods, settings } = await payments.methods.listMethods(principal.tenantId, principal.customerId);
  const provider = await payments.providerName(principal.tenantId);
  const elementsKey = provider === 'stripe' ? await payments.elementsKey(principal.tenantId) : null;
  const nonce = elementsKey !== null ? newNonce() : null;
  const hidden = `<input type="hidden" name="_csrf" value="${esc(csrf)}">`;
  const row = (m: PaymentMethodRow) => {
    const label = esc(methodLabel(m));
    const isDefault = settings.default_payment_method_id === m.id;
    const makeDefault = isDefault
      ? '<strong>Default</strong>'
      : `<form method="post" action="${esc(portalPath(token, `/payment-methods/${encodeURIComponent(m.id)}/default`))}">${hidden}<button type="submit">Make default<span class="visually-hidden">: ${label}</span></button></form>`;
    const remove = `<form method="post" action="${esc(portalPath(token, `/payment-methods/${encodeURIComponent(m.id)}/remove`))}">${hidden}<button type="submit">Remove<span class="visually-hidden">: ${label}</span></button></form>`;
    return `<tr><td>${label}</td><td>${makeDefault}</td><td>${remove}</td></tr>`;
  };
  const list = methods.length === 0
    ? '<p>No saved payment methods.</p>'
    : `<table><caption class="visually-hidden">Payment methods</caption><thead><tr><th scope="col">Method</th><th scope="col">Default</th><th scope="col">Remove</th></tr></thead><tbody>
${methods.map(row).join('\n')}
</tbody></table>`;
  return { html: `<section aria-labelledby="payment-methods"><h2 id="payment-methods">Payment methods</h2>
${banner}${list}
${addForm(provider, elementsKey, nonce, token, csrf, form)}</section>`, nonce };
}

/** Renders the portal page again, with a status and an error (a refused form). */
export type RenderPortal = (request: FastifyRequest, reply: FastifyReply, principal: PortalPrincipal, options: { status: number; error?: string; form?: Form }) => Promise<FastifyReply>;

/** The three forms' targets: add, remove, make default. Each answers 303 back to the page, or the page with the error. */
export function paymentMethodRoutes(tokens: PortalTokensService, payments: PortalPayments, render: RenderPortal, invalidLink: (reply: FastifyReply) => FastifyReply) {
  return (app: App) => {
    const options = {
      config: { public: true },
      onSend: noStore,
      schema: { hide: true, querystring: Type.Object({ token: Type.Optional(Type.String()) }) },
    } as const;

    /** Authenticates the token and checks the form's CSRF field, then runs the change. */
    async function change(request: FastifyRequest, reply: FastifyReply, notice: string, act: (principal: PortalPrincipal, form: Form | undefined) => Promise<unknown>) {
      const token = presentedToken(request);
      let principal: PortalPrincipal;
      try {
        principal = await tokens.authenticate(token);
      } catch (error) {
        if (!(error instanceof AppError) || error.status !== 401) throw error;
        return invalidLink(reply);
      }
      const form = request.body as Form | undefined;
      if (!payments.csrf.valid(request, token!, form?._csrf)) {
        return render(request, reply, principal, { status: 403, error: 'This form expired or did not come from this site. Reload the page and try again.' });
      }
      try {
        await act(principal, form);
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        return render(request, reply, principal, { status: error.status, error: error.message, form });
      }
      return seeOther(reply, `${portalPath(token!)}&notice=${notice}#payment-methods`);
    }

    app.post('/portal/customer/payment-methods', options, (request, reply) => change(request, reply, 'method-added', async (principal, form) => {
      const provider = await payments.providerName(principal.tenantId);
      const setDefault = field(form, 'set_default') === 'true';
      // only the fields of the tenant's provider: the service picks the method from them
      const input = provider === 'gocardless'
        ? { iban: field(form, 'iban').replace(/\s+/g, ''), account_holder_name: field(form, 'account_holder_name') || undefined }
        : provider === 'stripe'
          // the PaymentMethod id Elements created; the service saves it with a SetupIntent
          ? { provider_payment_method_id: checkedPaymentMethodId(field(form, 'payment_method_id')) }
          : { card_number: field(form, 'card_number').replace(/[\s-]/g, '') };
      if (provider === 'gocardless' && !input.iban) throw new AppError('BAD_REQUEST', 'IBAN is required, e.g. DE89 3704 0044 0532 0130 00');
      if (provider === 'sandbox' && !('card_number' in input && input.card_number)) throw new AppError('BAD_REQUEST', 'Card number is required, e.g. 4242 4242 4242 4242');
      // unticked: the service's own rule (the default when the customer has none yet)
      await payments.methods.attachMethod(principal.tenantId, principal.customerId, { ...input, ...(setDefault ? { set_default: true } : {}) });
    }));

    app.post('/portal/customer/payment-methods/:payment_method_id/remove', { ...options, schema: { ...options.schema, params: Type.Object({ payment_method_id: Type.String() }) } },
      (request, reply) => change(request, reply, 'method-removed', (principal) => payments.methods.detachMethod(principal.tenantId, principal.customerId, request.params.payment_method_id)));

    app.post('/portal/customer/payment-methods/:payment_method_id/default', { ...options, schema: { ...options.schema, params: Type.Object({ payment_method_id: Type.String() }) } },
      (request, reply) => change(request, reply, 'default-set', async (principal) => {
        const { methods } = await payments.methods.listMethods(principal.tenantId, principal.customerId);
        if (!methods.some((m) => m.id === request.params.payment_method_id)) throw new AppError('NOT_FOUND', 'That payment method is not one of yours (it may have been removed).', 404);
        await payments.methods.updateSettings(principal.tenantId, principal.customerId, { default_payment_method_id: request.params.payment_method_id });
      }));
  };
}
