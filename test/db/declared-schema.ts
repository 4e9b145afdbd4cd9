// The schema the migration files declare, read from their SQL, and the schema a database has,
// read from its catalogue, in one comparable shape: a test that migrates a database and compares
// the two fails when a file was not applied, or was applied differently from what it says.
//
// The reader understands the statements the migrations use: CREATE [UNLOGGED] TABLE, ALTER TABLE
// (ADD / DROP / RENAME COLUMN, RENAME TO), DROP TABLE, CREATE [UNIQUE] INDEX, ALTER INDEX ...
// RENAME TO, DROP INDEX. A statement it does not know leaves the schema as it was; a migration
// using one that changes tables or columns would show as a difference, to be taught here.
import type { Database } from '../../src/db/database.ts';
import type { Migration } from '../../src/db/migrate.ts';

export interface SchemaShape {
  /** "table.column", sorted. */
  columns: string[];
  /** Indexes created by CREATE INDEX (not those behind PRIMARY KEY or UNIQUE constraints), sorted. */
  indexes: string[];
}

/** What applying `migrations` in order declares. */
export function declaredSchema(migrations: readonly Migration[]): SchemaShape {
  const tables = new Map<string, string[]>();
  const indexes = new Set<string>();
  for (const migration of migrations) {
    for (const statement of statements(migration.sql)) apply(statement, tables, indexes);
  }
  return {
    columns: [...tables].flatMap(([table, columns]) => columns.map((c) => `${table}.${c}`)).sort(),
    indexes: [...indexes].sort(),
  };
}

/** The public schema of `db`, less the migration ledger itself. */
export async function actualSchema(db: Database): Promise<SchemaShape> {
  const columns = await db.query<{ name: string }>(
    `SELECT c.table_name || '.' || c.column_name AS name
       FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.table_name <> 'schema_migrations'`,
  );
  const indexes = await db.query<{ name: string }>(
    `SELECT i.indexname AS name FROM pg_indexes i
      WHERE i.schemaname = 'public'
        AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conname = i.indexname)`,
  );
  return {
    columns: columns.map((r) => r.name).sort(),
    indexes: indexes.map((r) => r.name).sort(),
  };
}

/** What is in one shape and not the other, as readable lines (empty when they agree). */
export function schemaDifferences(declared: SchemaShape, actual: SchemaShape): string[] {
  const lines: string[] = [];
  for (const kind of ['columns', 'indexes'] as const) {
    const a = new Set(actual[kind]);
    const d = new Set(declared[kind]);
    for (const name of declared[kind]) if (!a.has(name)) lines.push(`missing ${kind.slice(0, -1)} ${name}`);
    for (const name of actual[kind]) if (!d.has(name)) lines.push(`undeclared ${kind.slice(0, -1)} ${name}`);
  }
  return lines;
}

/** The SQL's statements, lower-cased, without comments, string contents or function bodies. */
function statements(sql: string): string[] {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const rest = sql.slice(i, i + 2);
    if (rest === '--') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end;
    } else if (rest === '/*') {
      i = sql.indexOf('*/', i) + 2;
    } else if (sql[i] === "'") {
      let j = i + 1;
      while (j < sql.length && !(sql[j] === "'" && sql[j + 1] !== "'")) j += sql[j] === "'" ? 2 : 1;
      out += "''";
      i = j + 1;
    } else if (sql[i] === '$' && /^\$[a-z_]*\$/i.test(sql.slice(i))) {
      const tag = /^\$[a-z_]*\$/i.exec(sql.slice(i))![0];
      i = sql.indexOf(tag, i + tag.length) + tag.length;
      out += "''";
    } else {
      out += sql[i];
      i++;
    }
  }
  return out
    .split(';')
    .map((s) => s.replace(/\s+/g, ' ').trim().toLowerCase())
    .filter((s) => s !== '');
}

type Tables = Map<string, string[]>;

/** Each statement the reader knows, and what it does to the tables and indexes. */
const STATEMENTS: [RegExp, (m: RegExpExecArray, tables: Tables, indexes: Set<string>) => void][] = [
  [
    /^create (?:unlogged )?table (?:if not exists )?(\w+) \((.*)\)$/,
    (m, tables) => {
      const columns = topLevelItems(m[2]!)
        .filter((item) => !/^(constraint|primary key|unique|check|foreign key|exclude)\b/.test(item))
        .map((item) => item.split(' ')[0]!);
      tables.set(m[1]!, columns);
    },
  ],
  [
    /^alter table (?:if exists )?(?:only )?(\w+) (.*)$/,
    (m, tables) => {
      let table = m[1]!;
      for (const action of topLevelItems(m[2]!)) table = alterTable(tables, table, action);
    },
  ],
  [
    /^drop table (?:if exists )?([\w, ]+)/,
    (m, tables) => {
      for (const name of m[1]!.split(',')) tables.delete(name.trim().split(' ')[0]!);
    },
  ],
  [
    /^create (?:unique )?index (?:concurrently )?(?:if not exists )?(\w+) on /,
    (m, _tables, indexes) => indexes.add(m[1]!),
  ],
  [
    /^alter index (?:if exists )?(\w+) rename to (\w+)$/,
    (m, _tables, indexes) => {
      indexes.delete(m[1]!);
      indexes.add(m[2]!);
    },
  ],
  [
    /^drop index (?:concurrently )?(?:if exists )?([\w, ]+)/,
    (m, _tables, indexes) => {
      for (const name of m[1]!.split(',')) indexes.delete(name.trim().split(' ')[0]!);
    },
  ],
];

function apply(statement: string, tables: Tables, indexes: Set<string>): void {
  for (const [pattern, effect] of STATEMENTS) {
    const match = pattern.exec(statement);
    if (match) {
      effect(match, tables, indexes);
      return;
    }
  }
}

/** One action of ALTER TABLE; returns the table's name after it (RENAME TO changes it). */
function alterTable(tables: Tables, table: string, action: string): string {
  const columns = tables.get(table) ?? [];
  const renameTable = /^rename to (\w+)$/.exec(action);
  if (renameTable) {
    tables.delete(table);
    tables.set(renameTable[1]!, columns);
    return renameTable[1]!;
  }
  const renameColumn = /^rename (?:column )?(\w+) to (\w+)$/.exec(action);
  if (renameColumn) {
    tables.set(
      table,
      columns.map((c) => (c === renameColumn[1] ? renameColumn[2]! : c)),
    );
    return table;
  }
  const add = /^add (?:column )?(?:if not exists )?(\w+)/.exec(action);
  if (add && add[1] !== 'constraint' && !columns.includes(add[1]!)) tables.set(table, [...columns, add[1]!]);
  const drop = /^drop (?:column )?(?:if exists )?(\w+)/.exec(action);
  if (drop && drop[1] !== 'constraint') {
    tables.set(
      table,
      columns.filter((c) => c !== drop[1]),
    );
  }
  return table;
}

/** The comma-separated items of a list, ignoring commas inside parentheses. */
function topLevelItems(list: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    if (list[i] === '(') depth++;
    else if (list[i] === ')') depth--;
    else if (list[i] === ',' && depth === 0) {
      items.push(list.slice(start, i).trim());
      start = i + 1;
    }
  }
  items.push(list.slice(start).trim());
  return items.filter((item) => item !== '');
}
