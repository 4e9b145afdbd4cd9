// GET /v2/agent/{projectId}/job/{id}/ci: the CI watch of a job's pull request (the checks the
// code host reports for the commit the job pushed last), as docs/ci-follow-up.md describes it.
import { Type } from 'typebox';

export const CI_WATCH_STATES = ['watching', 'passed', 'failed', 'timed_out', 'stopped'] as const;

export const CiCheckSchema = Type.Object(
  {
    name: Type.String({
      description: "GitHub's check run name or status context, GitLab's job name, Gitea's context.",
    }),
    state: Type.Union([Type.Literal('pending'), Type.Literal('success'), Type.Literal('failure')]),
    url: Type.Union([Type.String(), Type.Null()], {
      description: "The check's page, when the host gave one.",
    }),
  },
  { title: 'CI check' },
);

export const JobCiSchema = Type.Object(
  {
    state: Type.Union(
      [
        Type.Literal('watching'),
        Type.Literal('passed'),
        Type.Literal('failed'),
        Type.Literal('timed_out'),
        Type.Literal('stopped'),
      ],
      {
        description:
          'watching: polling the host; passed: every check passed; failed: a check failed; timed_out: the checks did not end (or never appeared) before the deadline; stopped: the job was archived or the watch could not go on.',
      },
    ),
    headSha: Type.String({
      description: 'The commit whose checks are watched: the last one the job pushed.',
    }),
    pullRequest: Type.String({ description: "The pull request's web address (the job's prLink)." }),
    observed: Type.Union(
      [
        Type.Literal('none'),
        Type.Literal('pending'),
        Type.Literal('error'),
        Type.Literal('success'),
        Type.Literal('failure'),
      ],
      {
        description:
          'What the last poll saw: none (no check reported yet), pending, success, failure, or error (the host could not be asked; lastError says why).',
      },
    ),
    checks: Type.Array(CiCheckSchema, { description: 'The checks the last poll saw (at most 100).' }),
    followUps: Type.Integer({
      minimum: 0,
      description:
        'Follow-ups the watcher sent this job over all its pull request pushes (bounded by ciMaxFollowUps).',
    }),
    polls: Type.Integer({ minimum: 0, description: 'Polls of the host for this commit.' }),
    lastError: Type.Union([Type.String(), Type.Null()]),
    outcome: Type.Union([Type.String(), Type.Null()], { description: 'Why the watch ended, in words.' }),
    startedAt: Type.String({ format: 'date-time' }),
    deadlineAt: Type.String({ format: 'date-time' }),
    endedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'Job CI watch' },
);
