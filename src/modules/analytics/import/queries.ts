// SQL for the log-import ledger (log_imports), one function per statement. See docs/log-import.md.
import type { Queryable } from '../../../db/database.ts';

export interface LedgerRow {
  fingerprint: string;
  sourceName: string;
  lines: number;
  prefixSha256: string;
  accepted: number;
  dropped: number;
  malformed: number;
  updatedAt: Date;
}

const COLUMNS = `fingerprint, source_name AS "sourceName", lines, prefix_sha256 AS "prefixSha256",
  accepted, dropped, malformed, updated_at AS "updatedAt"`;

export async function selectLedgerRows(
  db: Queryable,
  projectId: string,
  fingerprints: readonly string[],
): Promise<LedgerRow[]> {
  return db.query<LedgerRow>(
    `SELECT ${COLUMNS} FROM log_imports WHERE project_id = $1 AND fingerprint = ANY($2::text[])`,
    [projectId, fingerprints],
  );
}

/** Creates the ledger row of a log seen for the first time, with nothing counted yet. */
export async function insertLedgerRowIfAbsent(
  db: Queryable,
  row: { projectId: string; fingerprint: string; sourceName: string; emptySha256: string },
): Promise<void> {
  await db.query(
    `INSERT INTO log_imports (project_id, fingerprint, source_name, lines, prefix_sha256)
     VALUES ($1, $2, $3, 0, $4)
     ON CONFLICT (project_id, fingerprint) DO NOTHING`,
    [row.projectId, row.fingerprint, row.sourceName, row.emptySha256],
  );
}

/** Reads a ledger row and holds it until the transaction ends: one chunk of a log at a time. */
export async function lockLedgerRow(
  db: Queryable,
  projectId: string,
  fingerprint: string,
): Promise<LedgerRow | null> {
  const rows = await db.query<LedgerRow>(
    `SELECT ${COLUMNS} FROM log_imports WHERE project_id = $1 AND fingerprint = $2 FOR UPDATE`,
    [projectId, fingerprint],
  );
  return rows[0] ?? null;
}

export async function advanceLedgerRow(
  db: Queryable,
  row: {
    projectId: string;
    fingerprint: string;
    sourceName: string;
    lines: number;
    prefixSha256: string;
    accepted: number;
    dropped: number;
    malformed: number;
  },
): Promise<void> {
  await db.query(
    `UPDATE log_imports
        SET lines = $3, prefix_sha256 = $4, source_name = $5,
            accepted = accepted + $6, dropped = dropped + $7, malformed = malformed + $8,
            updated_at = now()
      WHERE project_id = $1 AND fingerprint = $2`,
    [
      row.projectId,
      row.fingerprint,
      row.lines,
      row.prefixSha256,
      row.sourceName,
      row.accepted,
      row.dropped,
      row.malformed,
    ],
  );
}
