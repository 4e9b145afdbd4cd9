// /app/team: people, invitations (created by the owner, link shown once), removal of members.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../../errors/app-error.ts';
import {
  inviteUser,
  listPendingInvitations,
  listUsers,
  removeMember,
  revokeInvitation,
} from '../../accounts/index.ts';
import { type DashboardContext, fieldErrorsOf, formOf, frameOf, linkBase } from '../context.ts';
import { redirectAfterPost, sendPage } from '../respond.ts';
import { requireSession } from '../state.ts';
import { type TeamPage, teamPage } from '../views/team-view.ts';

export function registerTeamRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { db } = ctx;
  const render = async (request: FastifyRequest, extra: Partial<TeamPage> = {}) =>
    teamPage(frameOf(request, { title: 'Team' }), {
      users: await listUsers(db),
      invitations: await listPendingInvitations(db),
      ...extra,
    });

  app.get('/team', async (request, reply) => sendPage(reply, await render(request)));

  app.post('/team/invitations', async (request, reply) => {
    const { user } = requireSession(request);
    const form = formOf(request);
    try {
      const { invitation, token } = await inviteUser(db, user, form.email);
      // The code travels in the fragment: browsers never send it to a server or in a Referer.
      const link = `${linkBase(ctx, request)}/app/invite#code=${token}`;
      return sendPage(reply, await render(request, { newInvitation: { email: invitation.email, link } }));
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      const page = await render(request, {
        form: { email: form.email ?? '', error: error.message, errors: fieldErrorsOf(error) },
      });
      return sendPage(reply, page, error.status);
    }
  });

  app.post<{ Params: { id: string } }>('/team/invitations/:id/revoke', async (request, reply) => {
    await revokeInvitation(db, requireSession(request).user, request.params.id);
    return redirectAfterPost(reply, '/app/team?notice=invitation-revoked');
  });

  app.post<{ Params: { id: string } }>('/team/users/:id/remove', async (request, reply) => {
    await removeMember(db, requireSession(request).user, request.params.id);
    return redirectAfterPost(reply, '/app/team?notice=member-removed');
  });
}
