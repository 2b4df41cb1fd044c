import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The house keeps its functions readable (docs/decisions/tooling-and-ci.md#functions-stay-under-150-lines):
// no production function (declaration, expression, arrow, method, accessor, constructor) over
// LONGEST lines, and at most MANY_ALLOWED over LONG. A function's length is its node's first line
// to its last, as the architecture review measured it; a function nested in another counts on its
// own and inside its parent.

const root = path.resolve(import.meta.dirname, '../..');
const FOLDERS = ['services', 'workers', 'runner'];
const LONGEST = 150;
const LONG = 100;
const MANY_ALLOWED = 10;

const skipped = new Set(['node_modules', 'dist', '.data', 'test', 'bench', 'coverage']);

/** Production TypeScript under the given folders: no tests, no test support, no benches, no builds. */
function productionFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (skipped.has(e.name)) return [];
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return productionFiles(full);
    if (!/\.tsx?$/.test(e.name) || /\.d\.ts$/.test(e.name) || /\.(test|bench)\.tsx?$/.test(e.name)) return [];
    return [full];
  });
}

type Measured = { where: string; name: string; lines: number };

function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) || ts.isPrivateIdentifier(node.name)))
    return node.name.text;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isCallExpression(parent)) return `(argument of ${parent.expression.getText().slice(0, 40)})`;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return '(anonymous)';
}

/** Every function in one file's text, with its length in lines. */
function measureFunctions(file: string, text: string): Measured[] {
  const source = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const found: Measured[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const start = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
      found.push({ where: `${file}:${start + 1}`, name: nameOf(fn), lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const describeLong = (fns: Measured[]) => fns.map((f) => `${f.where} ${f.name}: ${f.lines} lines`);

describe('function length', () => {
  const all = FOLDERS.flatMap((folder) => productionFiles(path.join(root, folder)))
    .map((file) => path.relative(root, file).split(path.sep).join('/'))
    .flatMap((file) => measureFunctions(file, readFileSync(path.join(root, file), 'utf8')))
    .sort((a, b) => b.lines - a.lines);
  const long = all.filter((f) => f.lines > LONG);
  if (long.length) console.log(`functions over ${LONG} lines:\n${describeLong(long).join('\n')}`);

  it('measures the production tree', () => {
    expect(all.length).toBeGreaterThan(1000);
  });

  it(`has no function over ${LONGEST} lines`, () => {
    expect(describeLong(all.filter((f) => f.lines > LONGEST))).toEqual([]);
  });

  it(`has at most ${MANY_ALLOWED} functions over ${LONG} lines`, () => {
    expect(long.length, describeLong(long).join('\n')).toBeLessThanOrEqual(MANY_ALLOWED);
  });

  it('counts a function from its first line to its last, nested ones too, in every form', () => {
    const text = [
      'function a() {', // 1
      '  const b = () => {', // 2
      '    return 1;', // 3
      '  };', // 4
      '}', // 5
      'const c = function () { return 2; };', // 6
      'class D {', // 7
      '  e() {', // 8
      '  }', // 9
      '}', // 10
      'const f = { g() { return 3; } };', // 11
      'declare function h(): void;', // 12: no body, not a function to measure
    ].join('\n');
    expect(measureFunctions('x.ts', text).map((f) => [f.where, f.name, f.lines])).toEqual([
      ['x.ts:1', 'a', 5],
      ['x.ts:2', 'b', 3],
      ['x.ts:6', 'c', 1],
      ['x.ts:8', 'e', 2],
      ['x.ts:11', 'g', 1],
    ]);
  });
});
