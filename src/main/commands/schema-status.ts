// Which migrations a database has, for `docwright migrate` to report.
import type { Queryable } from '../../db/database.ts';

export interface SchemaStatus {
  version: number;
  applied: { version: number; name: string; appliedAt: string }[];
}

export async function schemaStatus(db: Queryable): Promise<SchemaStatus> {
  const rows = await db.query<{ version: number; name: string; applied_at: Date }>(
    'SELECT version, name, applied_at FROM schema_migrations ORDER BY version',
  );
  return {
    version: rows.at(-1)?.version ?? 0,
    applied: rows.map((r) => ({ version: r.version, name: r.name, appliedAt: r.applied_at.toISOString() })),
  };
}
