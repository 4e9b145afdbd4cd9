// Writes docs/api.md from the OpenAPI document the server serves at /openapi.json, so the API
// reference cannot drift from the routes and schemas the server validates with.
//
//   node scripts/generate-api-docs.ts           rewrite docs/api.md
//   node scripts/generate-api-docs.ts --check   exit 1 when docs/api.md is stale (what the test does)
//
// The document comes from the real app, built as `docwright serve` builds it (dashboard included)
// on an empty in-memory database, and read through GET /openapi.json.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const API_DOC_PATH = fileURLToPath(new URL('../docs/api.md', import.meta.url));
const PUBLIC_URL = 'http://127.0.0.1:3000';

type Json = Record<string, unknown>;
interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  description?: string;
  title?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  default?: unknown;
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}
interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  security?: Json[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema: Schema }> }>;
}
interface OpenApiDocument {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

/** The OpenAPI document as the server serves it. */
export async function servedOpenApiDocument(): Promise<OpenApiDocument> {
  const { openPglite } = await import('../src/db/pglite.ts');
  const { buildApp } = await import('../src/http/app.ts');
  const { createLogger } = await import('../src/util/logger.ts');
  const db = await openPglite(null);
  const app = await buildApp({
    db,
    logger: createLogger('silent'),
    dashboard: { secretKey: Buffer.alloc(32) },
    config: { jobRateLimitPerHour: 100, defaultModel: null, publicUrl: PUBLIC_URL },
  });
  try {
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`/openapi.json answered ${res.statusCode}`);
    return res.json() as OpenApiDocument;
  } finally {
    await app.close();
    await db.close();
  }
}

const METHOD_ORDER = ['get', 'post', 'put', 'patch', 'delete', 'options', 'head'];

const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);
const anchor = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .trim()
    .replace(/ /g, '-');
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n+/g, ' ');
const schemaLink = (name: string) => `[${name}](#schema-${anchor(name)})`;

/** A schema in a few words: `string (date-time)`, `integer 1–250`, `"a" \| "b"`, `Job`... */
export function typeOf(schema: Schema): string {
  if (schema.$ref) return schemaLink(refName(schema.$ref));
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) {
    const consts = variants.filter((v) => v.enum?.length === 1 || v.const !== undefined);
    if (consts.length === variants.length) {
      return variants.map((v) => `\`${JSON.stringify(v.const ?? v.enum![0])}\``).join(' \\| ');
    }
    const nonNull = variants.filter((v) => v.type !== 'null');
    const text = nonNull.map(typeOf).join(' \\| ');
    return nonNull.length < variants.length ? `${text} or null` : text;
  }
  if (schema.enum) return schema.enum.map((v) => `\`${JSON.stringify(v)}\``).join(' \\| ');
  if (schema.type === 'array') {
    const items = schema.items ? typeOf(schema.items) : 'any';
    return `array of ${items}${schema.maxItems !== undefined ? ` (at most ${schema.maxItems})` : ''}`;
  }
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type ?? 'any');
  const bounds: string[] = [];
  if (schema.format) bounds.push(schema.format);
  // 2^53 - 1 is how a schema says "any safe integer": no real upper bound.
  const max = schema.maximum !== undefined && schema.maximum < 2 ** 53 - 1 ? schema.maximum : undefined;
  if (schema.minimum !== undefined && max !== undefined) bounds.push(`${schema.minimum}–${max}`);
  else if (schema.minimum !== undefined) bounds.push(`≥ ${schema.minimum}`);
  else if (max !== undefined) bounds.push(`≤ ${max}`);
  if (schema.minLength !== undefined || schema.maxLength !== undefined) {
    bounds.push(`${schema.minLength ?? 0}–${schema.maxLength ?? ''} characters`);
  }
  if (schema.default !== undefined) bounds.push(`default ${JSON.stringify(schema.default)}`);
  return bounds.length > 0 ? `${type} (${bounds.join(', ')})` : type;
}

/** The object schema inside a nullable or array wrapper, to list its fields. */
function objectInside(schema: Schema): { schema: Schema; suffix: string } | null {
  if (schema.properties) return { schema, suffix: '' };
  if (schema.type === 'array' && schema.items && !schema.items.$ref) {
    const inner = objectInside(schema.items);
    return inner ? { schema: inner.schema, suffix: `[]${inner.suffix}` } : null;
  }
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) {
    const objects = variants.filter((v) => v.properties);
    if (objects.length === 1) return { schema: objects[0]!, suffix: '' };
  }
  return null;
}

/** One row per field, nested objects flattened with dotted names (`source.ref`, `views[].path`). */
export function fieldRows(schema: Schema, prefix = ''): string[] {
  const rows: string[] = [];
  const required = new Set(schema.required ?? []);
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    const path = `${prefix}${name}`;
    rows.push(
      `| \`${path}\` | ${typeOf(field)} | ${required.has(name) ? 'yes' : 'no'} | ${cell(field.description ?? '')} |`,
    );
    const inner = objectInside(field);
    if (inner) rows.push(...fieldRows(inner.schema, `${path}${inner.suffix}.`));
  }
  return rows;
}

function fieldTable(schema: Schema): string[] {
  return ['| field | type | required | description |', '| --- | --- | --- | --- |', ...fieldRows(schema)];
}

function bodyLines(content: Record<string, { schema: Schema }>): string[] {
  const lines: string[] = [];
  for (const [type, { schema }] of Object.entries(content)) {
    const inner = schema.$ref ? null : objectInside(schema);
    if (inner && inner.suffix === '') {
      lines.push(`\`${type}\`: an object${schema.description ? `: ${schema.description}` : ''}`, '');
      lines.push(...fieldTable(inner.schema), '');
    } else {
      lines.push(`- \`${type}\`: ${typeOf(schema)}${schema.description ? `. ${schema.description}` : ''}`);
    }
  }
  if (lines.at(-1) !== '') lines.push('');
  return lines;
}

function operationLines(method: string, path: string, op: Operation): string[] {
  const lines = [`### ${method.toUpperCase()} \`${path}\``, ''];
  if (op.summary) lines.push(`**${op.summary}.**${op.description ? ` ${op.description}` : ''}`, '');
  else if (op.description) lines.push(op.description, '');
  const secured = (op.security ?? []).some((s) => 'bearerAuth' in s);
  lines.push(
    `Authentication: ${secured ? '`Authorization: Bearer dw_...` (an API key of the project)' : 'none'}.`,
  );
  lines.push('');
  const parameters = op.parameters ?? [];
  if (parameters.length > 0) {
    lines.push('| parameter | in | type | required | description |', '| --- | --- | --- | --- | --- |');
    for (const p of parameters) {
      lines.push(
        `| \`${p.name}\` | ${p.in} | ${p.schema ? typeOf(p.schema) : ''} | ${p.required ? 'yes' : 'no'} | ${cell(p.description ?? '')} |`,
      );
    }
    lines.push('');
  }
  if (op.requestBody) {
    lines.push(`Request body${op.requestBody.required ? '' : ' (optional)'}:`, '');
    lines.push(...bodyLines(op.requestBody.content));
  }
  const statuses = Object.keys(op.responses).sort();
  const errors = statuses.filter((s) => Number(s) >= 400 && isErrorBody(op.responses[s]!));
  for (const status of statuses.filter((s) => !errors.includes(s))) {
    const response = op.responses[status]!;
    const description =
      response.description && response.description !== 'Default Response' ? ` ${response.description}` : '';
    lines.push(`Answer **${status}**:${description}`, '');
    if (response.content) lines.push(...bodyLines(response.content));
  }
  if (errors.length > 0) {
    lines.push(
      `Errors: ${errors.join(', ')}, each with an ${schemaLink('ErrorBody')} (codes in [errors.md](errors.md)).`,
      '',
    );
  }
  return lines;
}

function isErrorBody(response: { content?: Record<string, { schema: Schema }> }): boolean {
  const schemas = Object.values(response.content ?? {}).map((c) => c.schema.$ref ?? '');
  return schemas.length > 0 && schemas.every((ref) => refName(ref) === 'ErrorBody');
}

export function renderApiReference(doc: OpenApiDocument): string {
  const byTag = new Map<string, { method: string; path: string; op: Operation }[]>();
  for (const [path, operations] of Object.entries(doc.paths)) {
    const methods = Object.keys(operations).sort((a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b));
    for (const method of methods) {
      const op = operations[method]!;
      const tag = op.tags?.[0] ?? 'other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push({ method, path, op });
    }
  }
  const lines = [
    '# API reference',
    '',
    '<!-- Generated from GET /openapi.json by scripts/generate-api-docs.ts: do not edit by hand. -->',
    '',
    `Generated from the OpenAPI ${doc.info.version} document the server serves at \`/openapi.json\``,
    '(also browsable at `/docs` on a running server) by `node scripts/generate-api-docs.ts`;',
    '`test/docs/api-reference.test.ts` fails when this page and the document differ.',
    '',
    doc.info.description ?? '',
    '',
    'Every error answer has the same body, an [ErrorBody](#schema-errorbody); its `code` values are listed in',
    '[errors.md](errors.md). Answers carry an `x-request-id` header.',
    '',
    '## Contents',
    '',
  ];
  for (const [tag, operations] of byTag) {
    lines.push(`- ${tag}`);
    for (const { method, path, op } of operations) {
      lines.push(
        `  - [${method.toUpperCase()} \`${path}\`](#${anchor(`${method} ${path}`)}): ${op.summary ?? ''}`,
      );
    }
  }
  lines.push(`- [schemas](#schemas)`, '');
  for (const [tag, operations] of byTag) {
    lines.push(`## ${tag[0]!.toUpperCase()}${tag.slice(1)}`, '');
    for (const { method, path, op } of operations) lines.push(...operationLines(method, path, op));
  }
  lines.push('## Schemas', '');
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    lines.push(`<a id="schema-${anchor(name)}"></a>`, '', `### ${name}`, '');
    if (schema.title && schema.title !== name) lines.push(`${schema.title}.`, '');
    if (schema.description) lines.push(schema.description, '');
    if (schema.properties) lines.push(...fieldTable(schema), '');
    else lines.push(`${typeOf(schema)}`, '');
  }
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = renderApiReference(await servedOpenApiDocument());
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(API_DOC_PATH, 'utf8');
    } catch {}
    if (current !== text) {
      process.stderr.write('docs/api.md is stale: run node scripts/generate-api-docs.ts\n');
      process.exit(1);
    }
  } else {
    writeFileSync(API_DOC_PATH, text);
    process.stdout.write(`wrote ${API_DOC_PATH}\n`);
  }
}
