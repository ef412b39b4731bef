import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, errorResponses, iso } from '../../http/schemas.js';
import type { MemberRow, MembersService } from './members.js';

const tags = ['Members'];
const Role = Type.Enum(['ADMIN', 'MEMBER'], { description: 'ADMIN adds and removes members; MEMBER uses the dashboard' });

export const Member = Type.Object({
  id: Type.String({ description: 'User ID (usr_...)' }),
  email: Type.String(),
  role: Role,
  created_at: Type.String({ format: 'date-time', description: 'When the user joined the organization' }),
});

const AddMemberBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 320, description: 'The e-mail of a user who has signed up' }),
  role: Type.Optional(Role),
}, { additionalProperties: false });

const memberExample = { id: 'usr_01KKRNW4G0AX3GZ0CQ6VJ8N1TB', email: 'ana@example.com', role: 'MEMBER' as const, created_at: '2026-03-15T12:00:00.000Z' };
const adminExample = { id: 'usr_01KKRNW4G0T3S1W4E8TFZ8M2KD', email: 'owner@example.com', role: 'ADMIN' as const, created_at: '2026-03-01T09:30:00.000Z' };

const memberToWire = (row: MemberRow) => ({ id: row.id, email: row.email, role: row.role, created_at: iso(row.created_at) });

/** Not in the reference API: the dashboard's Settings → Members (docs/api-differences.md). */
export function membersRoutes(members: MembersService) {
  return (app: App) => {
    app.get('/api/v1/members', {
      schema: {
        tags,
        operationId: 'list_members',
        summary: 'List the members of the organization',
        description:
          'The users who can sign in to the organization of the calling tenant (both its environments), with their role, in the order they joined (then by user id; not paged). ' +
          'Any credential of the organization may list them. Not in the reference API.',
        response: { 200: documented(Type.Object({ data: Type.Array(Member) }), 'The members.', { data: [adminExample, memberExample] }), ...errorResponses([401]) },
      },
    }, async (request) => ({ data: (await members.list(authOf(request))).map(memberToWire) }));

    app.post('/api/v1/members', {
      schema: {
        tags,
        operationId: 'add_member',
        summary: 'Add a user to the organization',
        description:
          'Adds an existing user, found by e-mail (case-insensitive), with `role` (default MEMBER). The user must have signed up first: an unknown e-mail is a 404 naming `email`; ' +
          'a user already a member is a 409. Only an ADMIN signed in to the dashboard may add members: an API key or OAuth token, or a MEMBER, gets a 403 ' +
          '(an API key belongs to one environment, a member reaches both). Not in the reference API.',
        body: documented(AddMemberBody, 'Who to add, and as what.', { email: 'ana@example.com', role: 'MEMBER' }),
        response: { 201: documented(Member, 'The new member.', memberExample), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    }, async (request, reply) => reply.status(201).send(memberToWire(await members.add(authOf(request), request.body))));

    app.delete('/api/v1/members/:user_id', {
      schema: {
        tags,
        operationId: 'remove_member',
        summary: 'Remove a member from the organization',
        description:
          'The user can no longer sign in to the organization; their account and other organizations are untouched. The last ADMIN cannot be removed (409), ' +
          'a user who is not a member is a 404. Only an ADMIN signed in to the dashboard may remove members (403 otherwise); an ADMIN may remove themselves ' +
          'while another ADMIN remains. Not in the reference API.',
        params: Type.Object({ user_id: Type.String({ description: 'User ID (usr_...)', examples: [memberExample.id] }) }),
        response: { 204: Type.Null({ description: 'Removed; no body' }), ...errorResponses([401, 403, 404, 409]) },
      },
    }, async (request, reply) => {
      await members.remove(authOf(request), request.params.user_id);
      return reply.status(204).send(null);
    });
  };
}
