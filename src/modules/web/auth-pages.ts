import type { App } from '../../http/app.js';
import { csrfField, sendCsrfFailure, statusAndMessage, text, type Form, type WebDeps } from './deps.js';
import { errorBox, html, safeReturnTo, seeOther, sendPage } from './html.js';
import type { WebSession } from './sessions.js';

const hidden = { schema: { hide: true } } as const;
/** Where sign-in and sign-up land without a return_to: the dashboard (docs/dashboard.md). */
const DASHBOARD = '/';

/** Sign-up, sign-in and sign-out (the account page is account-pages.ts). */
export function authPages(deps: WebDeps) {
  return (app: App) => {
    const signInForm = (session: WebSession, returnTo: string, email = '', error?: string) => html`
${errorBox(error)}
<form method="post" action="/signin">
${csrfField(deps, session)}
<input type="hidden" name="return_to" value="${returnTo}">
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${email}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<p>No account yet? <a href="/signup?return_to=${encodeURIComponent(returnTo)}">Create one</a>.</p>`;

    const signUpForm = (session: WebSession, returnTo: string, values: { email?: string; organization?: string }, error?: string) => html`
${errorBox(error)}
<form method="post" action="/signup">
${csrfField(deps, session)}
<input type="hidden" name="return_to" value="${returnTo}">
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${values.email ?? ''}">
<label for="password">Password (at least 8 characters)</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="8" required>
<label for="organization">Organization name (optional)</label>
<input id="organization" name="organization" autocomplete="organization" value="${values.organization ?? ''}" aria-describedby="organization-help">
<p id="organization-help">Creates an organization with a production and a sandbox environment. Leave empty when you are joining through a platform; you can also create one later on your account page.</p>
<button type="submit">Create account</button>
</form>
<p>Already have an account? <a href="/signin?return_to=${encodeURIComponent(returnTo)}">Sign in</a>.</p>`;

    app.get('/signin', hidden, async (request, reply) => {
      const session = await deps.sessions.load(request, reply);
      const query = request.query as Form;
      return sendPage(reply, 200, 'Sign in', signInForm(session, safeReturnTo(query.return_to, DASHBOARD)));
    });

    app.post('/signin', hidden, async (request, reply) => {
      const session = await deps.sessions.load(request, reply);
      const form = request.body as Form;
      if (!deps.sessions.csrfValid(session, form?._csrf)) return sendCsrfFailure(reply);
      const returnTo = safeReturnTo(form.return_to, DASHBOARD);
      const user = await deps.users.signIn(text(form, 'email'), text(form, 'password'));
      if (!user) return sendPage(reply, 401, 'Sign in', signInForm(session, returnTo, text(form, 'email'), 'The e-mail or the password is wrong.'));
      await deps.sessions.signIn(reply, user.id);
      return seeOther(reply, returnTo);
    });

    app.get('/signup', hidden, async (request, reply) => {
      const session = await deps.sessions.load(request, reply);
      const query = request.query as Form;
      return sendPage(reply, 200, 'Create an account', signUpForm(session, safeReturnTo(query.return_to, DASHBOARD), { email: text(query, 'email') }));
    });

    app.post('/signup', hidden, async (request, reply) => {
      const session = await deps.sessions.load(request, reply);
      const form = request.body as Form;
      if (!deps.sessions.csrfValid(session, form?._csrf)) return sendCsrfFailure(reply);
      const returnTo = safeReturnTo(form.return_to, DASHBOARD);
      const values = { email: text(form, 'email'), organization: text(form, 'organization') };
      try {
        const user = await deps.users.signUp({ email: values.email, password: text(form, 'password'), organizationName: values.organization || undefined });
        await deps.sessions.signIn(reply, user.id);
        return seeOther(reply, returnTo);
      } catch (error) {
        const { status, message } = statusAndMessage(error);
        return sendPage(reply, status, 'Create an account', signUpForm(session, returnTo, values, message));
      }
    });

    app.post('/signout', hidden, async (request, reply) => {
      const session = await deps.sessions.load(request, reply);
      if (!deps.sessions.csrfValid(session, (request.body as Form)?._csrf)) return sendCsrfFailure(reply);
      await deps.sessions.signOut(reply, session);
      return seeOther(reply, '/signin');
    });
  };
}
