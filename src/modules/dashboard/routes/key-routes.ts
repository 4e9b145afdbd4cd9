// /app/projects/:projectId/keys: the projectId, create (shown once), list, revoke with confirmation.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../../errors/app-error.ts';
import { type ApiKeyInfo, createKey, keyErrors, listKeys, parseExpiry, revokeKey } from '../../keys/index.ts';
import type { Project } from '../../projects/index.ts';
import { getProject } from '../../projects/index.ts';
import { type DashboardContext, fieldErrorsOf, formOf, frameOf } from '../context.ts';
import { redirectAfterPost, sendPage } from '../respond.ts';
import { EXPIRY_OPTIONS, type KeysPage, keysPage, revokeKeyPage } from '../views/keys-view.ts';

type ProjectParams = { Params: { projectId: string } };
type KeyParams = { Params: { projectId: string; keyId: string } };

const EXPIRIES = new Set(EXPIRY_OPTIONS.map((o) => o.value));

export function registerKeyRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { db } = ctx;
  const render = async (request: FastifyRequest, project: Project, extra: Partial<KeysPage> = {}) =>
    keysPage(frameOf(request, { title: `API keys · ${project.name}` }), project, {
      keys: (await listKeys(db, project.id)).toReversed(),
      ...extra,
    });

  /** The key, if it belongs to this project (ids of other projects' keys are "not found"). */
  const keyOfProject = async (projectId: string, keyId: string): Promise<ApiKeyInfo> => {
    const key = (await listKeys(db, projectId)).find((k) => k.id === keyId);
    if (!key) throw keyErrors.key_not_found(`No API key "${keyId}" in this project.`);
    return key;
  };

  app.get<ProjectParams>('/projects/:projectId/keys', async (request, reply) => {
    const project = await getProject(db, request.params.projectId);
    return sendPage(reply, await render(request, project));
  });

  app.post<ProjectParams>('/projects/:projectId/keys', async (request, reply) => {
    const project = await getProject(db, request.params.projectId);
    const form = formOf(request);
    try {
      const expiry = form.expiry ?? '';
      if (!EXPIRIES.has(expiry)) {
        throw keyErrors.invalid_key_request('Choose an expiry from the list.', {
          details: [{ location: 'body', name: 'expiry', message: 'Choose an expiry from the list.' }],
        });
      }
      const created = await createKey(db, {
        projectId: project.id,
        name: form.name ?? '',
        scope: form.scope ?? 'admin',
        expiresAt: expiry === '' ? null : parseExpiry(expiry),
      });
      // Answered directly, not redirected: the key must not travel in a URL or be stored to show later.
      return sendPage(
        reply,
        await render(request, project, { created: { name: created.name, key: created.key } }),
        201,
      );
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      const errors = fieldErrorsOf(error);
      if (Object.keys(errors).length === 0) {
        const field = /scope/.test(error.message) ? 'scope' : /expir/.test(error.message) ? 'expiry' : 'name';
        errors[field] = error.message;
      }
      const page = await render(request, project, { form: { ...form, error: error.message, errors } });
      return sendPage(reply, page, error.status);
    }
  });

  app.get<KeyParams>('/projects/:projectId/keys/:keyId/revoke', async (request, reply) => {
    const project = await getProject(db, request.params.projectId);
    const key = await keyOfProject(project.id, request.params.keyId);
    return sendPage(reply, revokeKeyPage(frameOf(request, { title: `Revoke ${key.name}` }), project, key));
  });

  app.post<KeyParams>('/projects/:projectId/keys/:keyId/revoke', async (request, reply) => {
    const project = await getProject(db, request.params.projectId);
    const key = await keyOfProject(project.id, request.params.keyId);
    await revokeKey(db, key.id);
    return redirectAfterPost(reply, `/app/projects/${project.id}/keys?notice=key-revoked`);
  });
}
