// A job event as the API shows it: in the SSE stream's data field and in the JSON fallback.
import { type Static, Type } from 'typebox';
import type { JobEventRow } from './queries.ts';

export const JobEventSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Increases within a job; the SSE id to resume after.' }),
    type: Type.String({
      description:
        'created, started, workspace, tool_call, step, model_retry, committed, pushed, pull_request, completed, failed, message, archived, released, ...',
    }),
    createdAt: Type.String({ format: 'date-time' }),
    data: Type.Record(Type.String(), Type.Unknown(), {
      description: 'Depends on the type; see docs/job-events.md.',
    }),
  },
  { $id: 'JobEvent', title: 'Job event' },
);
export type JobEventView = Static<typeof JobEventSchema>;

export function toJobEventView(row: JobEventRow): JobEventView {
  return { id: row.id, type: row.type, createdAt: row.created_at.toISOString(), data: row.data };
}
