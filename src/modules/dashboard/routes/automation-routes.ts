// /app/projects/:projectId/automations: the project's automations with their latest runs; the
// owner enables and disables them (members read).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { accountErrors } from '../../accounts/index.ts';
import { listAutomations, listRuns, updateAutomation } from '../../automations/index.ts';
import { getProject } from '../../projects/index.ts';
import { type DashboardContext, frameOf } from '../context.ts';
import { redirectAfterPost, sendPage } from '../respond.ts';
import { requireSession } from '../state.ts';
import { automationsPage } from '../views/automations-view.ts';

type ProjectParams = { Params: { projectId: string } };
type AutomationParams = { Params: { projectId: string; automationId: string } };

/** Runs shown per automation. */
const LATEST_RUNS = 5;

/** The roles that may enable and disable automations (an enabled one starts jobs on its own). */
const MANAGERS: ReadonlySet<string> = new Set(['owner', 'admin']);

const canManage = (request: FastifyRequest) => MANAGERS.has(requireSession(request).user.role);

export function registerAutomationRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { db } = ctx;

  app.get<ProjectParams>('/projects/:projectId/automations', async (request, reply) => {
    const project = await getProject(db, request.params.projectId);
    const automations = await listAutomations(db, project.id, ctx.publicUrl);
    const items = await Promise.all(
      automations.map(async (automation) => ({
        automation,
        runs: (
          await listRuns(db, {
            projectId: project.id,
            automationId: automation.id,
            limit: LATEST_RUNS,
            cursor: null,
          })
        ).runs,
      })),
    );
    const frame = frameOf(request, { title: `Automations · ${project.name}` });
    return sendPage(
      reply,
      automationsPage(frame, project, { automations: items, canManage: canManage(request) }),
    );
  });

  app.post<AutomationParams>(
    '/projects/:projectId/automations/:automationId/enabled',
    async (request, reply) => {
      if (!canManage(request))
        throw accountErrors.owner_only('Only the owner may enable or disable automations.');
      const project = await getProject(db, request.params.projectId);
      const enabled = (request.body as Record<string, unknown> | undefined)?.enabled === 'true';
      await updateAutomation(db, {
        projectId: project.id,
        id: request.params.automationId,
        body: { enabled },
        publicUrl: ctx.publicUrl,
      });
      return redirectAfterPost(
        reply,
        `/app/projects/${project.id}/automations?notice=${enabled ? 'automation-enabled' : 'automation-disabled'}`,
      );
    },
  );
}
