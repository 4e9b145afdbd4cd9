// SQL for sealed project secrets, one function per statement.
import type { Queryable } from '../../db/database.ts';

export async function upsertSecretRow(
  db: Queryable,
  projectId: string,
  name: string,
  sealed: string,
  boundTo: string | null,
): Promise<void> {
  await db.query(
    `INSERT INTO project_secrets (project_id, name, sealed, bound_to) VALUES ($1, $2, $3, $4)
     ON CONFLICT (project_id, name)
     DO UPDATE SET sealed = EXCLUDED.sealed, bound_to = EXCLUDED.bound_to, updated_at = now()`,
    [projectId, name, sealed, boundTo],
  );
}

export async function selectSecretRow(
  db: Queryable,
  projectId: string,
  name: string,
): Promise<{ sealed: string; boundTo: string | null } | null> {
  const rows = await db.query<{ sealed: string; bound_to: string | null }>(
    'SELECT sealed, bound_to FROM project_secrets WHERE project_id = $1 AND name = $2',
    [projectId, name],
  );
  return rows[0] ? { sealed: rows[0].sealed, boundTo: rows[0].bound_to } : null;
}

export async function selectSecretNames(
  db: Queryable,
  projectId: string,
): Promise<{ name: string; updatedAt: Date; boundTo: string | null }[]> {
  const rows = await db.query<{ name: string; updated_at: Date; bound_to: string | null }>(
    'SELECT name, updated_at, bound_to FROM project_secrets WHERE project_id = $1 ORDER BY name',
    [projectId],
  );
  return rows.map((r) => ({ name: r.name, updatedAt: r.updated_at, boundTo: r.bound_to }));
}

/** Binds the named secrets that have no binding yet (stored before bindings existed). */
export async function bindUnboundSecrets(
  db: Queryable,
  projectId: string,
  names: readonly string[],
  boundTo: string,
): Promise<void> {
  await db.query(
    'UPDATE project_secrets SET bound_to = $3 WHERE project_id = $1 AND name = ANY($2::text[]) AND bound_to IS NULL',
    [projectId, names, boundTo],
  );
}

export async function deleteSecretRow(db: Queryable, projectId: string, name: string): Promise<boolean> {
  const rows = await db.query(
    'DELETE FROM project_secrets WHERE project_id = $1 AND name = $2 RETURNING name',
    [projectId, name],
  );
  return rows.length > 0;
}
