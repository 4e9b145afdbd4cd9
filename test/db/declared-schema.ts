// The schema the migration files declare, read from their SQL, and the schema a database has,
// read from its catalogue, in one comparable shape: a test that migrates a database and compares
// the two fails when a file was not applied, or was applied differently from what it says.
//
// The reader understands the statements the migrations use: CREATE [UNLOGGED] TABLE, ALTER TABLE
// (ADD / DROP / RENAME COLUMN, RENAME TO), DROP TABLE, CREATE [UNIQUE] INDEX, ALTER INDEX ...
// RENAME TO, DROP INDEX, and the storage settings ALTER TABLE ... ALTER COLUMN ... SET STORAGE and
// ALTER TABLE ... SET (storage parameters). A statement it does not know leaves the schema as it
// was; a migration using one that changes tables or columns would show as a difference, to be
// taught here.
import type { Database } from '../../src/db/database.ts';
import type { Migration } from '../../src/db/migrate.ts';

export interface SchemaShape {
  /** "table.column", sorted. */
  columns: string[];
  /** Indexes created by CREATE INDEX (not those behind PRIMARY KEY or UNIQUE constraints), sorted. */
  indexes: string[];
  /**
   * Storage settings other than the defaults, sorted: "table.column storage external" (a
   * column's STORAGE unlike its type's) and "table fillfactor=80" (a table's parameters).
   */
  settings: string[];
}

/** What applying `migrations` in order declares. */
export function declaredSchema(migrations: readonly Migration[]): SchemaShape {
  const tables = new Map<string, string[]>();
  const indexes = new Set<string>();
  const settings: Settings = new Map();
  for (const migration of migrations) {
    for (const statement of statements(migration.sql)) apply(statement, tables, indexes, settings);
  }
  const columns = [...tables].flatMap(([table, columns]) => columns.map((c) => `${table}.${c}`));
  return {
    columns: columns.sort(),
    indexes: [...indexes].sort(),
    // A setting of a column or table dropped since goes with it.
    settings: [...settings.values()]
      .filter(({ owner }) => columns.includes(owner) || tables.has(owner))
      .map(({ text }) => text)
      .sort(),
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
  const storage = await db.query<{ name: string }>(
    `SELECT c.relname || '.' || a.attname || ' storage ' ||
            CASE a.attstorage WHEN 'p' THEN 'plain' WHEN 'e' THEN 'external' WHEN 'm' THEN 'main' ELSE 'extended' END AS name
       FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_type t ON t.oid = a.atttypid
      WHERE n.nspname = 'public' AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
        AND a.attstorage <> t.typstorage`,
  );
  const options = await db.query<{ name: string }>(
    `SELECT c.relname || ' ' || o AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace, unnest(c.reloptions) o
      WHERE n.nspname = 'public' AND c.relkind = 'r'`,
  );
  return {
    columns: columns.map((r) => r.name).sort(),
    indexes: indexes.map((r) => r.name).sort(),
    settings: [...storage, ...options].map((r) => r.name).sort(),
  };
}

/** What is in one shape and not the other, as readable lines (empty when they agree). */
export function schemaDifferences(declared: SchemaShape, actual: SchemaShape): string[] {
  const lines: string[] = [];
  for (const kind of ['columns', 'indexes', 'settings'] as const) {
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
/**
 * Non-default storage settings by what they set ("table.column storage", "table fillfactor"): the
 * column or table they belong to, and their text ("table.column storage external").
 */
type Settings = Map<string, { owner: string; text: string }>;

/** Each statement the reader knows, and what it does to the tables, indexes and settings. */
const STATEMENTS: [
  RegExp,
  (m: RegExpExecArray, tables: Tables, indexes: Set<string>, settings: Settings) => void,
][] = [
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
    (m, tables, _indexes, settings) => {
      let table = m[1]!;
      for (const action of topLevelItems(m[2]!)) table = alterTable(tables, settings, table, action);
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

function apply(statement: string, tables: Tables, indexes: Set<string>, settings: Settings): void {
  for (const [pattern, effect] of STATEMENTS) {
    const match = pattern.exec(statement);
    if (match) {
      effect(match, tables, indexes, settings);
      return;
    }
  }
}

/** One action of ALTER TABLE; returns the table's name after it (RENAME TO changes it). */
function alterTable(tables: Tables, settings: Settings, table: string, action: string): string {
  const columns = tables.get(table) ?? [];
  const storage = /^alter (?:column )?(\w+) set storage (\w+)$/.exec(action);
  if (storage) {
    const column = `${table}.${storage[1]}`;
    settings.set(`${column} storage`, { owner: column, text: `${column} storage ${storage[2]}` });
    return table;
  }
  const parameters = /^set \((.*)\)$/.exec(action);
  if (parameters) {
    for (const item of topLevelItems(parameters[1]!)) {
      const [name, value] = item.split('=').map((part) => part.trim());
      settings.set(`${table} ${name}`, { owner: table, text: `${table} ${name}=${value}` });
    }
    return table;
  }
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
