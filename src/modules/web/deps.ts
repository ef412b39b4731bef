import type { FastifyReply } from 'fastify';
import type { AccountsService } from '../accounts/index.js';
import type { AuthorizeService, ConnectService, UsersService } from '../oauth/index.js';
import { html, sendPage, type Html } from './html.js';
import type { Sessions, WebSession } from './sessions.js';

export interface WebDeps {
  sessions: Sessions;
  users: UsersService;
  authorize: AuthorizeService;
  connect: ConnectService;
  /** The account page: organizations' tenants and their API keys. */
  accounts: AccountsService;
}

/** Hidden CSRF field of every form. */
export function csrfField(deps: WebDeps, session: WebSession): Html {
  return html`<input type="hidden" name="_csrf" value="${deps.sessions.csrfToken(session)}">`;
}

export function sendCsrfFailure(reply: FastifyReply): FastifyReply {
  return sendPage(reply, 403, 'Form expired', html`<div class="error" role="alert"><p>This form expired or did not come from this site. Go back, reload the page and try again.</p></div>`);
}

/** Errors thrown by services carry a status and a message that is safe to show. */
export function statusAndMessage(error: unknown): { status: number; message: string } {
  const e = error as { status?: number; message?: string; name?: string };
  if (e?.name === 'AppError' && e.status && e.status < 500) return { status: e.status, message: e.message ?? 'request refused' };
  throw error;
}

export type Form = Record<string, unknown>;
export const text = (form: Form | undefined, name: string): string => (typeof form?.[name] === 'string' ? (form[name] as string) : '');
