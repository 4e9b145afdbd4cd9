// The /v2 automation routes: the automations of a project (admin keys change them, read keys may
// list and get them), their runs, a webhook trigger's URL (its own secret, no API key) and one
// inbound webhook endpoint per code host kind (signed with the project's codeHostWebhookSecret).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  AUTOMATION_CODE_HOSTS,
  type AutomationCodeHost,
  AutomationCreateBodySchema,
  AutomationListSchema,
  AutomationParamsSchema,
  AutomationRef,
  AutomationRunListQuerySchema,
  AutomationRunListSchema,
  AutomationRunSchema,
  AutomationSchema,
  AutomationUpdateBodySchema,
  InboundHookAnswerSchema,
  InboundHookParamsSchema,
  MAX_TRIGGER_BODY_BYTES,
  ProjectParamsSchema,
  TriggerAcceptedSchema,
} from '../../contract/index.ts';
import type { App, AppContext } from '../../http/context.ts';
import { checkIdempotencyKey } from '../../http/idempotency.ts';
import { errorResponses } from '../../http/openapi.ts';
import { receiveCodeHostWebhook, triggerAutomation } from './intake.ts';
import {
  createAutomation,
  deleteAutomation,
  getAutomation,
  listAutomations,
  listRuns,
  updateAutomation,
} from './service.ts';

const security = [{ bearerAuth: [] }];
const tags = ['automations'];

/** GitHub sends at most 25 MB; a push of many commits can be large. */
const MAX_INBOUND_BODY_BYTES = 25 * 1024 * 1024;

const HOST_HEADERS: Record<AutomationCodeHost, string> = {
  github: 'X-Hub-Signature-256 (HMAC-SHA256 of the body), X-GitHub-Event, X-GitHub-Delivery',
  gitlab: 'X-Gitlab-Token (the secret itself), X-Gitlab-Event, X-Gitlab-Event-UUID or Idempotency-Key',
  gitea: 'X-Gitea-Signature (hex HMAC-SHA256 of the body), X-Gitea-Event, X-Gitea-Delivery',
};

export function registerAutomationRoutes(app: App, context: AppContext): void {
  const { db, config } = context;
  const publicUrl = config.publicUrl;
  app.addSchema(AutomationSchema);
  app.addSchema(AutomationRunSchema);

  app.post(
    '/v2/automations/:projectId',
    {
      config: { access: 'write' },
      schema: {
        tags,
        security,
        summary: 'Create an automation',
        description:
          'One trigger (code_change, schedule or webhook), a prompt template and limits. A webhook trigger answers with its triggerSecret once.',
        params: ProjectParamsSchema,
        body: AutomationCreateBodySchema,
        response: { 201: AutomationRef, ...errorResponses() },
      },
    },
    async (request, reply) => {
      const automation = await createAutomation(db, {
        projectId: request.params.projectId,
        body: request.body,
        publicUrl,
      });
      return reply.code(201).send(automation);
    },
  );

  app.get(
    '/v2/automations/:projectId',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'List automations',
        params: ProjectParamsSchema,
        response: { 200: AutomationListSchema, ...errorResponses() },
      },
    },
    async (request) => ({ automations: await listAutomations(db, request.params.projectId, publicUrl) }),
  );

  app.get(
    '/v2/automations/:projectId/:automationId',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'Get an automation',
        params: AutomationParamsSchema,
        response: { 200: AutomationRef, ...errorResponses() },
      },
    },
    async (request) => getAutomation(db, request.params.projectId, request.params.automationId, publicUrl),
  );

  app.patch(
    '/v2/automations/:projectId/:automationId',
    {
      config: { access: 'write' },
      schema: {
        tags,
        security,
        summary: 'Change an automation',
        description:
          'Fields left out keep their values; limits are merged. rotateTriggerSecret makes a new trigger secret, answered once.',
        params: AutomationParamsSchema,
        body: AutomationUpdateBodySchema,
        response: { 200: AutomationRef, ...errorResponses() },
      },
    },
    async (request) =>
      updateAutomation(db, {
        projectId: request.params.projectId,
        id: request.params.automationId,
        body: request.body,
        publicUrl,
      }),
  );

  app.delete(
    '/v2/automations/:projectId/:automationId',
    {
      config: { access: 'write' },
      schema: {
        tags,
        security,
        summary: 'Delete an automation',
        description: 'Its queued runs go with it; the jobs it started stay.',
        params: AutomationParamsSchema,
        response: { ...errorResponses() },
      },
    },
    async (request, reply) => {
      await deleteAutomation(db, request.params.projectId, request.params.automationId);
      return reply.code(204).send();
    },
  );

  app.get(
    '/v2/automations/:projectId/:automationId/runs',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: "List an automation's runs",
        description: 'Newest first: what fired each, the job it started (if any) and why it was skipped.',
        params: AutomationParamsSchema,
        querystring: AutomationRunListQuerySchema,
        response: { 200: AutomationRunListSchema, ...errorResponses() },
      },
    },
    async (request) =>
      listRuns(db, {
        projectId: request.params.projectId,
        automationId: request.params.automationId,
        limit: request.query.limit,
        cursor: request.query.cursor ?? null,
      }),
  );

  app.post(
    '/v2/automations/:projectId/:automationId/trigger',
    {
      config: { access: 'public' },
      bodyLimit: MAX_TRIGGER_BODY_BYTES,
      schema: {
        tags,
        security: [{ triggerSecret: [] }],
        summary: "Start a run from an automation's trigger URL",
        description: `Takes the automation's trigger secret as "Authorization: Bearer dwt_..." (not an API key). Any JSON body (at most ${MAX_TRIGGER_BODY_BYTES / 1024} KiB, 16 levels) becomes {{event.body}} in the prompt template. Answers 202 with the queued run's id; an Idempotency-Key makes a retried call queue one run.`,
        params: AutomationParamsSchema,
        response: { 202: TriggerAcceptedSchema, ...errorResponses() },
      },
    },
    async (request, reply) => {
      const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
      const { runId } = await triggerAutomation(db, {
        projectId: request.params.projectId,
        automationId: request.params.automationId,
        secret: match?.[1] ?? null,
        body: request.body,
        idempotencyKey: checkIdempotencyKey(request.headers['idempotency-key'] as string | undefined),
      });
      return reply.code(202).send({ runId, status: 'queued' as const });
    },
  );

  // The code hosts sign the bytes they send: this scope keeps the body as text for the check.
  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser(
      ['application/json', 'application/x-www-form-urlencoded'],
      { parseAs: 'string', bodyLimit: MAX_INBOUND_BODY_BYTES },
      (_request, body, done) => done(null, body),
    );
    for (const host of AUTOMATION_CODE_HOSTS) {
      scope.post(
        `/v2/automations/:projectId/hooks/${host}`,
        {
          config: { access: 'public' },
          bodyLimit: MAX_INBOUND_BODY_BYTES,
          schema: {
            tags,
            security: [],
            summary: `Receive ${host} webhooks for code_change automations`,
            description: `Point a ${host} webhook (content type application/json) here with the project's codeHostWebhookSecret. Read: ${HOST_HEADERS[host]}. Merged pull requests and pushes queue runs of the matching automations; CI events (check runs, check suites, statuses, pipelines) make the CI watch of their commit poll now (ci in the answer); other events, and redeliveries, answer 200 and queue nothing. A missing or wrong signature answers 401 and queues nothing.`,
            params: InboundHookParamsSchema,
            response: { 200: InboundHookAnswerSchema, 202: InboundHookAnswerSchema, ...errorResponses() },
          },
        },
        async (request, reply) => {
          if (context.secretKey === undefined) {
            throw new Error('the server key is not configured for inbound webhooks');
          }
          const outcome = await receiveCodeHostWebhook(db, context.secretKey, {
            projectId: request.params.projectId,
            host,
            headers: request.headers,
            rawBody: typeof request.body === 'string' ? request.body : '',
          });
          const accepted = outcome.runs.length > 0 || (outcome.ci?.jobs.length ?? 0) > 0;
          return reply.code(accepted ? 202 : 200).send({
            received: true,
            runs: outcome.runs,
            ignored: outcome.ignored,
            ...(outcome.ci ? { ci: outcome.ci } : {}),
          });
        },
      );
    }
  });
}
