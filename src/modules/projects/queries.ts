// SQL for projects, one function per statement.
import type { Queryable } from '../../db/database.ts';
import type { CodeHostKind, Project, ProjectSettings } from './schemas.ts';

interface ProjectRow {
  id: string;
  name: string;
  repository_url: string;
  ref: string;
  code_host_kind: CodeHostKind;
  code_host_base_url: string | null;
  code_host_api_url: string | null;
  model: string | null;
  settings: ProjectSettings;
  created_at: Date;
  updated_at: Date;
}

const toProject = (r: ProjectRow): Project => ({
  id: r.id,
  name: r.name,
  repositoryUrl: r.repository_url,
  ref: r.ref,
  codeHost: { kind: r.code_host_kind, baseUrl: r.code_host_base_url, apiUrl: r.code_host_api_url },
  model: r.model,
  settings: r.settings,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export interface ProjectRecord {
  id: string;
  name: string;
  repositoryUrl: string;
  ref: string;
  codeHostKind: CodeHostKind;
  codeHostBaseUrl: string | null;
  codeHostApiUrl: string | null;
  model: string | null;
  settings: ProjectSettings;
}

export async function insertProject(db: Queryable, p: ProjectRecord): Promise<Project> {
  const rows = await db.query<ProjectRow>(
    `INSERT INTO projects (id, name, repository_url, ref, code_host_kind, code_host_base_url, model, settings,
                           code_host_api_url)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     RETURNING *`,
    [
      p.id,
      p.name,
      p.repositoryUrl,
      p.ref,
      p.codeHostKind,
      p.codeHostBaseUrl,
      p.model,
      JSON.stringify(p.settings),
      p.codeHostApiUrl,
    ],
  );
  return toProject(rows[0]!);
}

export async function selectProject(db: Queryable, id: string): Promise<Project | null> {
  const rows = await db.query<ProjectRow>('SELECT * FROM projects WHERE id = $1', [id]);
  return rows[0] ? toProject(rows[0]) : null;
}

export async function selectProjects(db: Queryable): Promise<Project[]> {
  const rows = await db.query<ProjectRow>('SELECT * FROM projects ORDER BY created_at, id');
  return rows.map(toProject);
}

export async function countProjects(db: Queryable): Promise<number> {
  const rows = await db.query<{ n: number }>('SELECT count(*)::bigint AS n FROM projects');
  return rows[0]!.n;
}

export async function updateProjectRow(db: Queryable, p: ProjectRecord): Promise<Project | null> {
  const rows = await db.query<ProjectRow>(
    `UPDATE projects
        SET name = $2, repository_url = $3, ref = $4, code_host_kind = $5, code_host_base_url = $6,
            model = $7, settings = $8, code_host_api_url = $9, updated_at = now()
      WHERE id = $1
      RETURNING *`,
    [
      p.id,
      p.name,
      p.repositoryUrl,
      p.ref,
      p.codeHostKind,
      p.codeHostBaseUrl,
      p.model,
      JSON.stringify(p.settings),
      p.codeHostApiUrl,
    ],
  );
  return rows[0] ? toProject(rows[0]) : null;
}
