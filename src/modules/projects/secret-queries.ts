// SQL for sealed project secrets, one function per statement.
import type { Queryable } from '../../db/database.ts';

export async function upsertSecretRow(
  db: Queryable,
  projectId: string,
  name: string,
  sealed: string,
): Promise<void> {
  await db.query(
    `INSERT INTO project_secrets (project_id, name, sealed) VALUES ($1, $2, $3)
     ON CONFLICT (project_id, name) DO UPDATE SET sealed = EXCLUDED.sealed, updated_at = now()`,
    [projectId, name, sealed],
  );
}

export async function selectSecretRow(
  db: Queryable,
  projectId: string,
  name: string,
): Promise<string | null> {
  const rows = await db.query<{ sealed: string }>(
    'SELECT sealed FROM project_secrets WHERE project_id = $1 AND name = $2',
    [projectId, name],
  );
  return rows[0]?.sealed ?? null;
}

export async function selectSecretNames(
  db: Queryable,
  projectId: string,
): Promise<{ name: string; updatedAt: Date }[]> {
  const rows = await db.query<{ name: string; updated_at: Date }>(
    'SELECT name, updated_at FROM project_secrets WHERE project_id = $1 ORDER BY name',
    [projectId],
  );
  return rows.map((r) => ({ name: r.name, updatedAt: r.updated_at }));
}

export async function deleteSecretRow(db: Queryable, projectId: string, name: string): Promise<boolean> {
  const rows = await db.query(
    'DELETE FROM project_secrets WHERE project_id = $1 AND name = $2 RETURNING name',
    [projectId, name],
  );
  return rows.length > 0;
}
