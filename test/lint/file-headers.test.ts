// One file-header style (issue #50): what a file is for is said in `//` lines at its very top, above the
// imports; a `/** … */` block documents the declaration right below it and nothing else. These tests
// plant each other style a file could take (each must be reported) and check every file of src/ and
// packages/*/src.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const TREES = ['src', 'packages/core/src', 'packages/client/src'];

/** Every comment of a file, read by TypeScript (so `/**` inside a string or template is not one). */
function commentsOf(text: string): { file: ts.SourceFile; comments: ts.CommentRange[] } {
  const file = ts.createSourceFile('file.ts', text, ts.ScriptTarget.Latest, true);
  const found = new Map<number, ts.CommentRange>();
  const visit = (node: ts.Node): void => {
    for (const range of ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []) found.set(range.pos, range);
    for (const child of node.getChildren(file)) visit(child);
  };
  visit(file);
  return { file, comments: [...found.values()].sort((a, b) => a.pos - b.pos) };
}

// What follows a comment that documents no code: a blank line, the end of the file or another block.
const DOCUMENTS_NOTHING = /^(?:[ \t]*\r?\n[ \t]*\r?\n|\s*$|\s*\/\*)/;

/** The header-style problems of one file's text, as `line N: what`; none for a file in the house style. */
function headerProblems(text: string): string[] {
  const { file, comments } = commentsOf(text);
  const problems: string[] = [];
  const line = (pos: number): number => file.getLineAndCharacterOfPosition(pos).line + 1;
  for (const comment of comments) {
    if (comment.kind !== ts.SyntaxKind.MultiLineCommentTrivia) continue;
    const after = text.slice(comment.end);
    if (/^\s*import\s/.test(after))
      problems.push(`line ${line(comment.pos)}: a /* */ header above the imports (write it as // lines)`);
    else if (DOCUMENTS_NOTHING.test(after))
      problems.push(
        `line ${line(comment.pos)}: a /* */ block that documents no declaration (a note about the file is its // header)`,
      );
  }
  // The first comment after the imports, when it documents no declaration, is a header out of place.
  const statements = file.statements;
  const firstCode = statements.findIndex((statement) => !isImport(statement));
  if (firstCode > 0) {
    const leading = ts.getLeadingCommentRanges(text, statements[firstCode]!.pos) ?? [];
    const first = leading[0];
    if (first !== undefined && first.kind === ts.SyntaxKind.SingleLineCommentTrivia) {
      // A run of `//` lines is one block: it ends where a line of code, a blank line or a `/*` block follows.
      let end = first.end;
      for (const next of leading.slice(1)) {
        if (next.kind !== ts.SyntaxKind.SingleLineCommentTrivia || /\n[ \t]*\r?\n/.test(text.slice(end, next.pos)))
          break;
        end = next.end;
      }
      if (DOCUMENTS_NOTHING.test(text.slice(end)))
        problems.push(`line ${line(first.pos)}: a // header below the imports (move it above them)`);
    }
  }
  return problems;
}

function isImport(statement: ts.Statement): boolean {
  return (
    ts.isImportDeclaration(statement) ||
    ts.isImportEqualsDeclaration(statement) ||
    (ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined)
  );
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

describe('file headers', () => {
  it.each([
    ['a /** */ header above the imports', "/**\n * What this file is for.\n */\nimport { a } from './a.js';\n"],
    ['a detached /** */ header', '/**\n * What this file is for.\n */\n\nexport const a = 1;\n'],
    [
      'a /** */ header below the imports',
      "import { a } from './a.js';\n\n/** What this file is for. */\n\nexport const b = a;\n",
    ],
    [
      'a // header below the imports',
      "import { a } from './a.js';\n\n// What this file is for,\n// in two lines.\n\nexport const b = a;\n",
    ],
    [
      'an orphan /** */ note further down',
      'export const a = 1;\n\n/**\n * About the file.\n */\n\nexport const b = 2;\n',
    ],
    [
      'a /** */ note above another doc block',
      "import { a } from './a.js';\n/** About the file. */\n/** b. */\nexport const b = a;\n",
    ],
  ])('reports %s', (_name, text) => {
    expect(headerProblems(text)).toHaveLength(1);
  });

  it.each([
    [
      'a // header above the imports',
      "// What this file is for.\nimport { a } from './a.js';\n\n/** b. */\nexport const b = a;\n",
    ],
    ['a // header, a blank line, code', '// What this file is for.\n\n/** a. */\nexport const a = 1;\n'],
    [
      'no header: the first declaration says it',
      "import { a } from './a.js';\n\n/** What b is. */\nexport const b = a;\n",
    ],
    ['a // comment on the first statement', "import { a } from './a.js';\n\n// Why b is a.\nexport const b = a;\n"],
    ['/** inside a string', 'export const page = `\n/**\n * not a comment\n */\n\n`;\n'],
    ['a /** */ doc then a // directive', '/** a. */\n// eslint-disable-next-line no-var\nexport var a = 1;\n'],
  ])('accepts %s', (_name, text) => {
    expect(headerProblems(text)).toEqual([]);
  });

  it('holds for every file of src/ and packages/*/src', () => {
    const files = TREES.flatMap((tree) => sourceFiles(join(root, tree)));
    expect(files.length).toBeGreaterThan(100);
    const problems = files.flatMap((path) =>
      headerProblems(readFileSync(path, 'utf8')).map((problem) => `${relative(root, path)} ${problem}`),
    );
    expect(problems).toEqual([]);
  });
});
