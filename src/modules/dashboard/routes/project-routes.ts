// /app/projects: list and create; /app/projects/:projectId/settings: settings and secrets.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../../errors/app-error.ts';
import { accountErrors } from '../../accounts/index.ts';
import type { CodeHostKind, Project, ProjectSettings } from '../../projects/index.ts';
import {
  createProject,
  deleteProjectSecret,
  getProject,
  listProjectSecrets,
  listProjects,
  PROJECT_SECRET_NAMES,
  type ProjectSecretName,
  setProjectSecret,
  suspendedSecrets,
  updateProject,
} from '../../projects/index.ts';
import { type DashboardContext, fieldErrorsOf, formOf, frameOf } from '../context.ts';
import { redirectAfterPost, sendPage } from '../respond.ts';
import { requireSession } from '../state.ts';
import type { FieldErrors } from '../views/fields.ts';
import { projectsPage } from '../views/projects-view.ts';
import {
  type SecretStatus,
  type SettingsForm,
  settingsFormOf,
  settingsPage,
} from '../views/settings-view.ts';

type ProjectParams = { Params: { projectId: string } };

/**
 * What only the owner may change: where the project's repository is and what reaches it (the
 * code-host token goes there), where webhooks go, and the GitHub App in use. Members change
 * everything else (name, branch, model, agent bounds, allowed origins) and run jobs.
 */
const OWNER_ONLY_FIELDS = [
  'repositoryUrl',
  'codeHostKind',
  'codeHostBaseUrl',
  'codeHostApiUrl',
  'webhookUrl',
  'githubAppId',
  'githubAppInstallationId',
] as const;

function requireOwner(request: FastifyRequest, what: string): void {
  if (requireSession(request).user.role !== 'owner') {
    throw accountErrors.owner_only(`Only the owner may ${what}.`);
  }
}

/** For a member: the owner-only fields sent must be unchanged (absent ones keep their values). */
function checkMemberChanges(request: FastifyRequest, project: Project, form: Record<string, string>): void {
  if (requireSession(request).user.role === 'owner') return;
  const current = settingsFormOf(project);
  const changed = OWNER_ONLY_FIELDS.filter(
    (field) => form[field] !== undefined && form[field].trim() !== current[field].trim(),
  );
  if (changed.length > 0) {
    throw accountErrors.owner_only(`Only the owner may change ${changed.join(', ')}.`);
  }
}

/** The project service names the code host field codeHost; the forms call it codeHostKind. */
function formErrorsOf(error: AppError): FieldErrors {
  const errors = fieldErrorsOf(error);
  if (errors.codeHost) errors.codeHostKind = errors.codeHost;
  return errors;
}

const lines = (text: string | undefined) =>
  (text ?? '')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');

/** '' clears a number setting (back to the server default); anything else must be an integer. */
function integerOrNull(text: string | undefined): number | null {
  const t = (text ?? '').trim();
  return t === '' ? null : Number(t);
}

function settingsChanges(form: Record<string, string>): Record<string, unknown> {
  const textOrNull = (v: string | undefined) => ((v ?? '').trim() === '' ? null : (v ?? '').trim());
  const denied = lines(form.deniedPaths);
  const origins = lines(form.allowedOrigins);
  return {
    draftPullRequests: form.draftPullRequests === 'on',
    deniedPaths: denied.length > 0 ? denied : null,
    maxSteps: integerOrNull(form.maxSteps),
    maxTotalTokens: integerOrNull(form.maxTotalTokens),
    wallTimeSeconds: integerOrNull(form.wallTimeSeconds),
    allowedOrigins: origins.length > 0 ? origins : null,
    // Owner-only settings a form leaves out keep their values.
    ...(form.webhookUrl !== undefined ? { webhookUrl: textOrNull(form.webhookUrl) } : {}),
    ...(form.githubAppId !== undefined ? { githubAppId: textOrNull(form.githubAppId) } : {}),
    ...(form.githubAppInstallationId !== undefined
      ? { githubAppInstallationId: textOrNull(form.githubAppInstallationId) }
      : {}),
  };
}

function formFromBody(form: Record<string, string>): SettingsForm {
  return {
    name: form.name ?? '',
    repositoryUrl: form.repositoryUrl ?? '',
    ref: form.ref ?? '',
    codeHostKind: form.codeHostKind ?? '',
    codeHostBaseUrl: form.codeHostBaseUrl ?? '',
    codeHostApiUrl: form.codeHostApiUrl ?? '',
    model: form.model ?? '',
    draftPullRequests: form.draftPullRequests === 'on',
    deniedPaths: form.deniedPaths ?? '',
    maxSteps: form.maxSteps ?? '',
    maxTotalTokens: form.maxTotalTokens ?? '',
    wallTimeSeconds: form.wallTimeSeconds ?? '',
    allowedOrigins: form.allowedOrigins ?? '',
    webhookUrl: form.webhookUrl ?? '',
    githubAppId: form.githubAppId ?? '',
    githubAppInstallationId: form.githubAppInstallationId ?? '',
  };
}

/** All known secrets, set or not, in a stable order. */
async function secretStatuses(ctx: DashboardContext, projectId: string): Promise<SecretStatus[]> {
  const stored = new Map((await listProjectSecrets(ctx.db, projectId)).map((s) => [s.name, s]));
  return (Object.keys(PROJECT_SECRET_NAMES) as ProjectSecretName[]).map((name) => ({
    name,
    updatedAt: stored.get(name)?.updatedAt ?? null,
    suspendedFor: stored.get(name)?.suspendedFor ?? null,
  }));
}

export function registerProjectRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { db } = ctx;
  const access = ctx.repositories ?? { allowPrivateAddresses: false };

  app.get('/projects', async (request, reply) =>
    sendPage(reply, projectsPage(frameOf(request, { title: 'Projects' }), await listProjects(db))),
  );

  app.post('/projects', async (request, reply) => {
    const form = formOf(request);
    try {
      requireOwner(request, 'create projects');
      const project = await createProject(
        db,
        {
          name: form.name ?? '',
          repositoryUrl: form.repositoryUrl ?? '',
          ...(form.ref?.trim() ? { ref: form.ref } : {}),
          ...(form.codeHostKind ? { codeHostKind: form.codeHostKind as CodeHostKind } : {}),
          codeHostBaseUrl: form.codeHostBaseUrl ?? null,
          codeHostApiUrl: form.codeHostApiUrl ?? null,
          model: form.model ?? null,
        },
        access,
      );
      return redirectAfterPost(reply, `/app/projects/${project.id}/settings?notice=project-created`);
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      const page = projectsPage(frameOf(request, { title: 'Projects' }), await listProjects(db), {
        ...form,
        error: error.message,
        errors: formErrorsOf(error),
      });
      return sendPage(reply, page, error.status);
    }
  });

  app.get<ProjectParams>('/projects/:projectId', async (request, reply) => {
    const project = await getProject(db, request.params.projectId);
    return reply.redirect(`/app/projects/${project.id}/jobs`);
  });

  const renderSettings = async (
    request: FastifyRequest,
    project: Project,
    extra: Partial<Parameters<typeof settingsPage>[2]> = {},
  ) =>
    settingsPage(frameOf(request, { title: `Settings · ${project.name}` }), project, {
      form: settingsFormOf(project),
      secrets: await secretStatuses(ctx, project.id),
      defaultModel: ctx.jobs.defaultModel,
      ...extra,
    });

  app.get<ProjectParams>('/projects/:projectId/settings', async (request, reply) => {
    const project = await getProject(db, request.params.projectId);
    return sendPage(reply, await renderSettings(request, project));
  });

  app.post<ProjectParams>('/projects/:projectId/settings', async (request, reply) => {
    const project = await getProject(db, request.params.projectId);
    const form = formOf(request);
    try {
      checkMemberChanges(request, project, form);
      const kept = (field: string, value: string | null) => (form[field] === undefined ? value : null);
      await updateProject(
        db,
        project.id,
        {
          name: form.name ?? '',
          repositoryUrl: form.repositoryUrl ?? project.repositoryUrl,
          ref: form.ref ?? '',
          ...(form.codeHostKind ? { codeHostKind: form.codeHostKind as CodeHostKind } : {}),
          codeHostBaseUrl: form.codeHostBaseUrl?.trim()
            ? form.codeHostBaseUrl
            : kept('codeHostBaseUrl', project.codeHost.baseUrl),
          codeHostApiUrl: form.codeHostApiUrl?.trim()
            ? form.codeHostApiUrl
            : kept('codeHostApiUrl', project.codeHost.apiUrl),
          model: form.model?.trim() ? form.model : null,
          // null removes a setting (the server default applies again): see updateProject.
          settings: settingsChanges(form) as ProjectSettings,
        },
        access,
      );
      const suspended = (await suspendedSecrets(db, project.id)).length > 0;
      const notice = suspended ? 'settings-saved-secrets-suspended' : 'settings-saved';
      return redirectAfterPost(reply, `/app/projects/${project.id}/settings?notice=${notice}`);
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      const page = await renderSettings(request, project, {
        form: formFromBody(form),
        error: error.message,
        errors: formErrorsOf(error),
      });
      return sendPage(reply, page, error.status);
    }
  });

  app.post<ProjectParams>('/projects/:projectId/secrets', async (request, reply) => {
    const project = await getProject(db, request.params.projectId);
    const form = formOf(request);
    const rawRemove = (request.body as { remove?: unknown } | null)?.remove;
    const remove = new Set(
      (Array.isArray(rawRemove) ? rawRemove : [rawRemove]).filter((v) => typeof v === 'string'),
    );
    const names = Object.keys(PROJECT_SECRET_NAMES) as ProjectSecretName[];
    try {
      requireOwner(request, "change a project's secrets");
      for (const name of names) {
        const value = form[name] ?? '';
        if (value.trim() !== '') await setProjectSecret(db, ctx.secretKey, project.id, name, value);
        else if (remove.has(name)) await deleteProjectSecret(db, project.id, name);
      }
      return redirectAfterPost(reply, `/app/projects/${project.id}/settings?notice=secrets-saved`);
    } catch (error) {
      // The message never carries a secret's value: the project service names only the secret.
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      const page = await renderSettings(request, project, { secretsError: error.message });
      return sendPage(reply, page, error.status);
    }
  });
}
