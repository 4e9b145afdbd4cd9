// A stored job event as the API shows it (JobEventSchema in the contract): in the SSE stream's
// data field and in the JSON fallback.
import type { JobEventView } from '../../../contract/index.ts';
import type { JobEventRow } from './queries.ts';

export function toJobEventView(row: JobEventRow): JobEventView {
  return { id: row.id, type: row.type, createdAt: row.created_at.toISOString(), data: row.data };
}
