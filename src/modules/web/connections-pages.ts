import type { App } from '../../http/app.js';
import { csrfField, sendCsrfFailure, statusAndMessage, type Form, type WebDeps } from './deps.js';
import { errorBox, html, seeOther, sendPage } from './html.js';

/** The merchant's own view of the applications connected to their organizations. */
export function connectionsPages(deps: WebDeps) {
  return (app: App) => {
    app.get('/account/connections', { schema: { hide: true } }, async (request, reply) => {
      const session = await deps.sessions.load(request, reply);
      if (!session.user) return seeOther(reply, `/signin?return_to=${encodeURIComponent('/account/connections')}`);
      const connections = await deps.connect.userConnections(session.user.id);
      const done = (request.query as Form).disconnected === '1';
      const body = html`
${done ? html`<p role="status">Disconnected. The application's tokens no longer work.</p>` : ''}
${connections.length === 0
  ? html`<p>No application is connected to your organizations.</p>`
  : html`<table><caption>Applications with access to your organizations</caption>
<thead><tr><th scope="col">Application</th><th scope="col">Organization</th><th scope="col">Connected</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
<tbody>${connections.map((c) => html`<tr><td>${c.app_name}</td><td>${c.organization_name}</td><td>${c.activated_at.toISOString().slice(0, 10)}</td>
<td><form method="post" action="/account/connections/${c.id}/disconnect">${csrfField(deps, session)}
<button type="submit" aria-label="Disconnect ${c.app_name} from ${c.organization_name}">Disconnect</button></form></td></tr>`)}</tbody></table>`}
<p><a href="/account">Back to your account</a></p>`;
      return sendPage(reply, 200, 'Connected applications', body);
    });

    app.post('/account/connections/:connected_account_id/disconnect', { schema: { hide: true } }, async (request, reply) => {
      const session = await deps.sessions.load(request, reply);
      if (!deps.sessions.csrfValid(session, (request.body as Form)?._csrf)) return sendCsrfFailure(reply);
      if (!session.user) return seeOther(reply, '/signin');
      try {
        await deps.connect.disconnectByUser(session.user.id, (request.params as { connected_account_id: string }).connected_account_id);
      } catch (error) {
        const { status, message } = statusAndMessage(error);
        return sendPage(reply, status, 'Connected applications', errorBox(message));
      }
      return seeOther(reply, '/account/connections?disconnected=1');
    });
  };
}
