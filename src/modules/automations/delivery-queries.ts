// SQL for pruning the code hosts' delivery ids (automation_inbound_deliveries): kept long enough
// to recognise a redelivery, then deleted by age in batches.
import type { Queryable } from '../../db/database.ts';

/** Deletes up to `limit` delivery ids received before `before`; returns how many went. */
export async function deleteInboundDeliveriesBefore(
  db: Queryable,
  before: Date,
  limit: number,
): Promise<number> {
  const rows = await db.query(
    `DELETE FROM automation_inbound_deliveries
      WHERE ctid IN (SELECT ctid FROM automation_inbound_deliveries WHERE received_at < $1 LIMIT $2)
      RETURNING 1`,
    [before, limit],
  );
  return rows.length;
}
