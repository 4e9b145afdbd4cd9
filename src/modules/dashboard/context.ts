// What the dashboard's routes are built with: the same database and services as the API.
import type { FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.ts';
import type { AppError } from '../../errors/app-error.ts';
import type { JobServiceConfig } from '../jobs/index.ts';
import type { RepositoryAccess } from '../projects/index.ts';
import type { CookieSettings } from './state.ts';
import type { FieldErrors } from './views/fields.ts';
import type { PageFrame } from './views/layout.ts';

export interface DashboardOptions {
  db: Database;
  /** Seals project secrets (code-host token, model key, webhook secret) written from the settings page. */
  secretKey: Buffer;
  /** The address people reach the server at: links (invitations) and the allowed CSRF origin. */
  publicUrl: string;
  jobs: JobServiceConfig;
  /** DOCWRIGHT_REPOSITORIES_ALLOW_PRIVATE: repository URLs on http and private addresses. */
  repositories?: RepositoryAccess;
  /** Wakes a worker in this process when a job is created or followed up from the dashboard. */
  onJobQueued?: (jobId: string) => void;
}

export interface DashboardContext extends DashboardOptions {
  cookies: CookieSettings;
  publicOrigin: string;
}

/** Messages shown after a redirect; the URL carries only the key, never text to reflect. */
export const NOTICES: Record<string, string> = {
  // The first start may already have made a demo project: the page below says what to do next.
  welcome: 'Your owner account is ready.',
  'signed-in': 'Signed in.',
  'signed-out': 'Signed out.',
  'project-created': 'Project created. Add the code host token and the model below, then create an API key.',
  'settings-saved': 'Settings saved.',
  'settings-saved-secrets-suspended':
    'Settings saved. The code host changed, so its stored token or App key is suspended: jobs do not send it to the new host. Set it again below.',
  'secrets-saved': 'Secrets saved.',
  'key-revoked': 'The key was revoked: requests with it are refused from now on.',
  'job-created': 'Job started. Its status updates here as it runs.',
  'job-not-started': 'The job did not start: it ended at once. Why is shown below.',
  'job-cancelled': 'Cancel requested: the job stops within seconds.',
  'job-archived': 'Job archived.',
  'automation-enabled': 'Automation enabled: it starts runs again.',
  'automation-disabled': 'Automation disabled: it starts no runs until enabled again.',
  'follow-up-sent': 'Follow-up sent: the job runs again on the same branch.',
  'invitation-revoked': 'Invitation revoked.',
  'member-removed': 'Member removed; their sessions ended.',
  joined: 'Welcome! Your account is ready.',
};

export function noticeOf(request: FastifyRequest): string | null {
  const key = (request.query as Record<string, unknown> | undefined)?.notice;
  return typeof key === 'string' ? (NOTICES[key] ?? null) : null;
}

export function frameOf(request: FastifyRequest, frame: Omit<PageFrame, 'csrfToken' | 'user'>): PageFrame {
  const state = request.dashboardState;
  return {
    notice: noticeOf(request),
    ...frame,
    csrfToken: state?.csrfToken ?? '',
    user: state?.session?.user ?? null,
  };
}

/**
 * Where links sent to people point: the public URL, or this request's own origin when the public
 * URL names port 0 (the system chose the port, so only the request knows it).
 */
export function linkBase(ctx: DashboardContext, request: FastifyRequest): string {
  return new URL(ctx.publicUrl).port === '0' ? `${request.protocol}://${request.host}` : ctx.publicUrl;
}

/** Field names of an error's details, as the forms name their inputs ("settings.maxSteps" → "maxSteps"). */
export function fieldErrorsOf(error: AppError): FieldErrors {
  const errors: FieldErrors = {};
  for (const d of error.details ?? []) {
    if (!d.name) continue;
    const name = d.name.startsWith('settings.') ? d.name.slice('settings.'.length).split('.')[0]! : d.name;
    errors[name] = errors[name] ? `${errors[name]} ${d.message}` : d.message;
  }
  return errors;
}

/** The form body as strings (formbody gives strings, or arrays for repeated names). */
export function formOf(request: FastifyRequest): Record<string, string> {
  const body = request.body;
  const out: Record<string, string> = {};
  if (body && typeof body === 'object') {
    for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
      if (typeof v === 'string') out[k] = v;
      else if (Array.isArray(v) && typeof v.at(-1) === 'string') out[k] = v.at(-1) as string;
    }
  }
  return out;
}
