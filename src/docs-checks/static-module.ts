// The value a JavaScript or TypeScript config module exports, read without running it
// (Docusaurus' sidebars.js / sidebars.ts): docwright never runs a repository's code. The module
// is parsed with acorn (already loaded: remark-mdx parses MDX's expressions with it), TypeScript
// first blanked to JavaScript by Node's own type stripping (strip-types.ts; it keeps every
// position, so lines stay right). The export is read when it is a static literal: objects, arrays, strings,
// numbers, booleans, null, template strings without `${}`, spreads of those, and top-level
// constants holding them. Anything else (a call, a function, an import) is code: its value is
// only known by running it, so the caller falls back to not knowing the navigation.
import { type Expression, type Node, type Program, parse, type SpreadElement } from 'acorn';
import { stripTypes } from './strip-types.ts';

export type StaticModule =
  /** `lines`: the line of each string's first occurrence, for reporting an entry. */
  | { kind: 'value'; value: unknown; lines: Map<string, number> }
  /** What made it code, and where. */
  | { kind: 'computed'; what: string; line: number }
  | { kind: 'error'; message: string; line: number | null };

/** Deeper literals than this are not read (no real sidebar nests so far; the stack must hold). */
const MAX_DEPTH = 200;

class Computed {
  readonly what: string;
  readonly line: number;
  constructor(what: string, line: number) {
    this.what = what;
    this.line = line;
  }
}

export function readStaticModule(text: string, typescript: boolean): StaticModule {
  let program: Program;
  try {
    const source = typescript ? stripTypes(text) : text;
    program = parse(source, { ecmaVersion: 'latest', sourceType: 'module', locations: true });
  } catch (error) {
    return { kind: 'error', ...syntaxError(error) };
  }
  const exported = exportedExpression(program);
  if (exported === null)
    return { kind: 'computed', what: 'no `export default` or `module.exports =`', line: 1 };
  const constants = topLevelConstants(program);
  const lines = new Map<string, number>();
  const evaluating = new Set<string>();

  const evaluate = (node: Expression | SpreadElement, depth: number): unknown => {
    if (depth > MAX_DEPTH) throw new Computed(`nesting deeper than ${MAX_DEPTH}`, lineOf(node));
    switch (node.type) {
      case 'Literal':
        if (node.value instanceof RegExp || typeof node.value === 'bigint') break;
        if (typeof node.value === 'string' && !lines.has(node.value)) lines.set(node.value, lineOf(node));
        return node.value;
      case 'TemplateLiteral':
        if (node.expressions.length > 0) break;
        return node.quasis[0]?.value.cooked ?? '';
      case 'ArrayExpression': {
        const items: unknown[] = [];
        for (const element of node.elements) {
          if (element === null) continue;
          if (element.type !== 'SpreadElement') {
            items.push(evaluate(element, depth + 1));
            continue;
          }
          const spread = evaluate(element.argument, depth + 1);
          if (!Array.isArray(spread)) throw new Computed('a spread of a non-array', lineOf(element));
          items.push(...spread);
        }
        return items;
      }
      case 'ObjectExpression': {
        const object: Record<string, unknown> = {};
        for (const property of node.properties) {
          if (property.type === 'SpreadElement') {
            const spread = evaluate(property.argument, depth + 1);
            if (spread === null || typeof spread !== 'object' || Array.isArray(spread))
              throw new Computed('a spread of a non-literal', lineOf(property));
            Object.assign(object, spread);
            continue;
          }
          if (property.kind !== 'init' || property.method) throw new Computed('a method', lineOf(property));
          const key = property.key;
          let name: string;
          if (!property.computed && key.type === 'Identifier') name = key.name;
          else if (key.type === 'Literal' && (typeof key.value === 'string' || typeof key.value === 'number'))
            name = String(key.value);
          else throw new Computed('a computed key', lineOf(property));
          object[name] = evaluate(property.value as Expression, depth + 1);
        }
        return object;
      }
      case 'Identifier': {
        if (node.name === 'undefined') return undefined;
        const init = constants.get(node.name);
        if (!init || evaluating.has(node.name)) break;
        evaluating.add(node.name);
        const value = evaluate(init, depth + 1);
        evaluating.delete(node.name);
        return value;
      }
      case 'UnaryExpression':
        if (
          node.operator === '-' &&
          node.argument.type === 'Literal' &&
          typeof node.argument.value === 'number'
        )
          return -node.argument.value;
        break;
    }
    throw new Computed(describe(node), lineOf(node));
  };

  try {
    return { kind: 'value', value: evaluate(exported, 0), lines };
  } catch (error) {
    if (error instanceof Computed) return { kind: 'computed', what: error.what, line: error.line };
    throw error;
  }
}

/** `export default X` or `module.exports = X` (the last one, as running it would leave). */
function exportedExpression(program: Program): Expression | null {
  let found: Expression | null = null;
  for (const statement of program.body) {
    if (statement.type === 'ExportDefaultDeclaration') {
      const declaration = statement.declaration;
      if (declaration.type !== 'FunctionDeclaration' && declaration.type !== 'ClassDeclaration')
        found = declaration;
      else found = null;
    } else if (
      statement.type === 'ExpressionStatement' &&
      statement.expression.type === 'AssignmentExpression' &&
      statement.expression.operator === '=' &&
      isModuleExports(statement.expression.left)
    ) {
      found = statement.expression.right;
    }
  }
  return found;
}

function isModuleExports(node: Node): boolean {
  if (node.type !== 'MemberExpression') return false;
  const member = node as Node & { object: Node; property: Node; computed: boolean };
  return (
    !member.computed &&
    member.object.type === 'Identifier' &&
    (member.object as Node & { name: string }).name === 'module' &&
    member.property.type === 'Identifier' &&
    (member.property as Node & { name: string }).name === 'exports'
  );
}

/** Top-level `const`/`let`/`var name = init` (a name declared twice is code: its value depends on order). */
function topLevelConstants(program: Program): Map<string, Expression> {
  const constants = new Map<string, Expression>();
  const twice = new Set<string>();
  for (const statement of program.body) {
    const declaration =
      statement.type === 'VariableDeclaration'
        ? statement
        : statement.type === 'ExportNamedDeclaration' && statement.declaration?.type === 'VariableDeclaration'
          ? statement.declaration
          : null;
    for (const declarator of declaration?.declarations ?? []) {
      if (declarator.id.type !== 'Identifier' || !declarator.init) continue;
      if (constants.has(declarator.id.name)) twice.add(declarator.id.name);
      constants.set(declarator.id.name, declarator.init);
    }
  }
  for (const name of twice) constants.delete(name);
  return constants;
}

function describe(node: Node): string {
  const words: Record<string, string> = {
    CallExpression: 'a function call',
    ArrowFunctionExpression: 'a function',
    FunctionExpression: 'a function',
    Identifier: `a name defined elsewhere (${(node as Node & { name?: string }).name ?? ''})`,
    MemberExpression: 'a property read',
    TemplateLiteral: 'a template string with an expression',
    ConditionalExpression: 'a condition',
    ImportExpression: 'an import',
    AwaitExpression: 'an await',
  };
  return words[node.type] ?? `a ${node.type}`;
}

function lineOf(node: Node): number {
  return node.loc?.start.line ?? 1;
}

function syntaxError(error: unknown): { message: string; line: number | null } {
  if (error instanceof RangeError) return { message: 'it nests too deeply to read', line: null };
  // acorn's errors carry loc ("Unexpected token (3:4)"), amaro's (SWC's) startLine.
  const found = error as { message?: string; loc?: { line?: number }; startLine?: number };
  const line = found.loc?.line ?? found.startLine ?? null;
  const message = (found.message ?? String(error))
    .split('\n')[0]!
    .replace(/\s*\(\d+:\d+\)$/, '')
    .replace(/\. Expected .*$/, '');
  return { message, line: typeof line === 'number' && line > 0 ? line : null };
}
