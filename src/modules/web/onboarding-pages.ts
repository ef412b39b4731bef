import type { FastifyReply } from 'fastify';
import type { App } from '../../http/app.js';
import { csrfField, sendCsrfFailure, statusAndMessage, text, type Form, type WebDeps } from './deps.js';
import { errorBox, html, seeOther, sendPage } from './html.js';
import type { WebSession } from './sessions.js';

type Account = Awaited<ReturnType<WebDeps['connect']['openOnboarding']>>;

const FIELDS = [
  { name: 'organization_name', label: 'Organization name', autocomplete: 'organization', required: true },
  { name: 'legal_name', label: 'Legal name', autocomplete: 'organization', required: true },
  { name: 'address_line1', label: 'Address', autocomplete: 'address-line1', required: true },
  { name: 'address_line2', label: 'Address, second line (optional)', autocomplete: 'address-line2', required: false },
  { name: 'city', label: 'City', autocomplete: 'address-level2', required: true },
  { name: 'zip_code', label: 'Postal code', autocomplete: 'postal-code', required: true },
  { name: 'country', label: 'Country (two-letter code, e.g. FR)', autocomplete: 'country', required: true },
  { name: 'vat_number', label: 'VAT number (optional)', autocomplete: 'off', required: false },
] as const;

/** Express onboarding: sign in or up, then business details; submit creates the merchant's organization. */
export function onboardingPages(deps: WebDeps) {
  return (app: App) => {
    const path = (token: string) => `/connect/onboarding/${encodeURIComponent(token)}`;

    function detailsForm(reply: FastifyReply, session: WebSession, token: string, account: Account, values: Form, error?: string) {
      const value = (name: string) => (name in values ? text(values, name) : name === 'organization_name' ? account.organization_name : name === 'country' ? (account.country ?? '') : '');
      const body = html`
${errorBox(error)}
<p>Signed in as ${session.user!.email}. These details create your organization and appear on your invoices.</p>
<form method="post" action="${path(token)}">
${csrfField(deps, session)}
${FIELDS.map((f) => html`<label for="${f.name}">${f.label}</label>
<input id="${f.name}" name="${f.name}" autocomplete="${f.autocomplete}"${f.required ? html` required` : ''} value="${value(f.name)}">`)}
<button type="submit">Finish setup</button>
</form>`;
      return sendPage(reply, error ? 400 : 200, 'Set up your billing account', body);
    }

    async function open(reply: FastifyReply, token: string): Promise<Account | FastifyReply> {
      try {
        return await deps.connect.openOnboarding(token);
      } catch (error) {
        const { status, message } = statusAndMessage(error);
        return sendPage(reply, status, 'Onboarding link unavailable', errorBox(message));
      }
    }

    app.get('/connect/onboarding/:token', { schema: { hide: true } }, async (request, reply) => {
      const { token } = request.params as { token: string };
      const account = await open(reply, token);
      if (!('id' in account)) return account;
      const session = await deps.sessions.load(request, reply);
      if (!session.user) {
        const back = encodeURIComponent(path(token));
        return sendPage(reply, 200, 'Set up your billing account', html`
<p>You were invited to set up billing for <strong>${account.organization_name}</strong>. First sign in, or create an account.</p>
<p><a href="/signup?return_to=${back}&amp;email=${encodeURIComponent(account.email ?? '')}">Create an account</a></p>
<p><a href="/signin?return_to=${back}">Sign in</a></p>`);
      }
      return detailsForm(reply, session, token, account, {});
    });

    app.post('/connect/onboarding/:token', { schema: { hide: true } }, async (request, reply) => {
      const { token } = request.params as { token: string };
      const session = await deps.sessions.load(request, reply);
      const form = (request.body ?? {}) as Form;
      if (!deps.sessions.csrfValid(session, form._csrf)) return sendCsrfFailure(reply);
      const account = await open(reply, token);
      if (!('id' in account)) return account;
      if (!session.user) return seeOther(reply, path(token));
      const missing = FIELDS.find((f) => f.required && !text(form, f.name).trim());
      if (missing) return detailsForm(reply, session, token, account, form, `${missing.label} is required.`);
      try {
        const location = await deps.connect.completeOnboarding(token, session.user.id, {
          organizationName: text(form, 'organization_name').trim(),
          legalName: text(form, 'legal_name').trim(),
          addressLine1: text(form, 'address_line1').trim(),
          addressLine2: text(form, 'address_line2').trim() || null,
          city: text(form, 'city').trim(),
          zipCode: text(form, 'zip_code').trim(),
          country: text(form, 'country').trim().toUpperCase(),
          vatNumber: text(form, 'vat_number').trim() || null,
        });
        return seeOther(reply, location);
      } catch (error) {
        return detailsForm(reply, session, token, account, form, statusAndMessage(error).message);
      }
    });
  };
}
