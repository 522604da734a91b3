// `npm run typecheck` is `tsc -b && tsc -p test`: the build checks src/ and the packages' src/, and
// test/tsconfig.json every test folder (vitest strips types without checking them). These tests check that
// the second program holds every test file, the packages' included, and that it reports a planted error.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const parsed = ts.getParsedCommandLineOfConfigFile(
  join(root, 'test/tsconfig.json'),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  },
)!;

/** The .ts files under `dir` (relative to the repository), as absolute paths. */
const tsFiles = (dir: string): string[] =>
  readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts') && !path.split('/').includes('node_modules'))
    .map((path) => join(root, dir, path));

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('npm run typecheck', () => {
  it('runs the build and test/tsconfig.json', () => {
    const scripts = (
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts.typecheck).toBe('tsc -b && tsc -p test');
  });

  it("checks every test file, the packages' tests included", () => {
    const checked = new Set(parsed.fileNames);
    // The contract client is type-checked by the contract test, against the types it generates first.
    const leftOut = new Set([join(root, 'test/openapi/contract-client.ts')]);
    const testFiles = ['test', 'packages/core/test', 'packages/client/test']
      .flatMap(tsFiles)
      .filter((file) => !file.includes('/test/openapi/generated/') && !leftOut.has(file));
    expect(testFiles.length).toBeGreaterThan(150);
    expect(testFiles.filter((file) => !checked.has(file))).toEqual([]);
  });

  it("reports a type error planted in a package's test", () => {
    // The kind of error the packages' tests held while no typecheck read them: a property the type lacks.
    const dir = mkdtempSync(join(tmpdir(), 'typecheck-'));
    made.push(dir);
    const planted = join(dir, 'planted.test.ts');
    writeFileSync(
      planted,
      'interface NamedTool {\n  toolKey: string;\n  toolName: string;\n}\n' +
        "export const tools: NamedTool[] = [{ toolKey: 's:a', toolName: 'a', serverName: 'S' }];\n",
    );
    const program = ts.createProgram([planted], { ...parsed.options, rootDir: undefined });
    const errors = ts.getPreEmitDiagnostics(program).map((diagnostic) => ({
      file: diagnostic.file?.fileName,
      code: diagnostic.code,
    }));
    expect(errors).toEqual([{ file: planted, code: 2353 }]);
  }, 120_000); // a program with Node's and the ES library's types: seconds, more on a busy machine
});
