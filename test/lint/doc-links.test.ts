// Relative links in the READMEs (the folders' included) and docs/, and the docs/*.md references of code
// comments (src/, packages/*/src), point at files and headings of this repository; moving a file or
// renaming a heading breaks them silently. The checker runs on a small planted tree (each broken link
// must be reported) and on the real documents and code (nothing), so it cannot pass by reading nothing.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import GithubSlugger from 'github-slugger';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Markdown without its fenced code blocks: a link-like text in an example is not a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** The anchors GitHub makes for a document's headings (repeats get -1, -2, ...) and its explicit ids. */
function anchorsOf(file: string): Set<string> {
  const text = prose(readFileSync(file, 'utf8'));
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  for (const [, heading = ''] of text.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    // GitHub slugs the heading's text: link targets and code marks are not part of it.
    anchors.add(slugger.slug(heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '')));
  }
  for (const [, id = ''] of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(id);
  return anchors;
}

/** Every relative link of `files` (paths under `baseDir`) whose file or anchor does not exist. */
function brokenLinks(baseDir: string, files: string[]): { broken: string[]; checked: number } {
  const broken: string[] = [];
  let checked = 0;
  for (const file of files) {
    const from = join(baseDir, file);
    for (const [, target = ''] of prose(readFileSync(from, 'utf8')).matchAll(/\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto: ...: not in the repository
      checked += 1;
      const [path, anchor] = target.split('#', 2);
      const linked = path ? resolve(dirname(from), decodeURIComponent(path)) : from;
      if (!existsSync(linked)) broken.push(`${file}: ${target} (no such file)`);
      else if (anchor && linked.endsWith('.md') && !anchorsOf(linked).has(anchor))
        broken.push(`${file}: ${target} (no such heading)`);
    }
  }
  return { broken: broken.sort(), checked };
}

/** Every `docs/<file>.md#anchor` a code comment of `files` names (from the repository root) that does not exist. */
function brokenCodeReferences(baseDir: string, files: string[]): { broken: string[]; checked: number } {
  const broken: string[] = [];
  let checked = 0;
  for (const file of files) {
    for (const [target = ''] of readFileSync(join(baseDir, file), 'utf8').matchAll(
      /\bdocs\/[\w.-]+\.md(?:#[\w-]+)?/g,
    )) {
      checked += 1;
      const [path = '', anchor] = target.split('#', 2);
      const linked = join(baseDir, path);
      if (!existsSync(linked)) broken.push(`${file}: ${target} (no such file)`);
      else if (anchor && !anchorsOf(linked).has(anchor)) broken.push(`${file}: ${target} (no such heading)`);
    }
  }
  return { broken: broken.sort(), checked };
}

/** The files under `baseDir` whose names end in `suffix`, as paths under it (dependencies and builds left out). */
function filesEndingIn(baseDir: string, suffix: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(suffix)) found.push(relative(baseDir, path));
    }
  };
  walk(baseDir);
  return found.sort();
}

/** README.md (every folder's), docs/*.md and the other documents people read, as paths under `baseDir`. */
const documents = (baseDir: string): string[] => filesEndingIn(baseDir, '.md');

/** The code of src/ and packages/*\/src, as paths under `baseDir`. */
const code = (baseDir: string): string[] =>
  filesEndingIn(baseDir, '.ts').filter((file) => /^(src|packages\/[^/]+\/src)\//.test(file));

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function fixtureTree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'doc-links-'));
  made.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('relative links in the documents', () => {
  it('reports a missing file, a missing heading and a missing heading of the same page', () => {
    const dir = fixtureTree({
      'README.md': [
        '# Demo',
        'See [the API](docs/api.md#errors), [gone](docs/gone.md), [renamed](docs/api.md#old-name),',
        '[here](#demo), [down](#nowhere), [code](src/app.ts) and [the web](https://example.com/x#y).',
        '```sh',
        'echo [not a link](docs/nothing.md)',
        '```',
      ].join('\n'),
      'docs/api.md': '# API\n\n## Errors\n\n## `meta.skipped` and [friends](../README.md)\n',
      'src/app.ts': 'export {};\n',
    });
    expect(brokenLinks(dir, documents(dir))).toEqual({
      broken: [
        'README.md: #nowhere (no such heading)',
        'README.md: docs/api.md#old-name (no such heading)',
        'README.md: docs/gone.md (no such file)',
      ],
      checked: 7,
    });
  });

  it("reports a code comment's reference to a missing document or heading", () => {
    const dir = fixtureTree({
      'docs/api.md': '# API\n\n## Errors\n',
      'src/routes/search.ts': '// See docs/api.md#errors, docs/api.md#old-name and docs/gone.md.\nexport {};\n',
      'packages/core/src/rank.ts': '/** As docs/api.md says (docs/api.md#nowhere). */\nexport {};\n',
      'test/x.test.ts': '// docs/not-read.md: tests are not read\n',
    });
    expect(brokenCodeReferences(dir, code(dir))).toEqual({
      broken: [
        'packages/core/src/rank.ts: docs/api.md#nowhere (no such heading)',
        'src/routes/search.ts: docs/api.md#old-name (no such heading)',
        'src/routes/search.ts: docs/gone.md (no such file)',
      ],
      checked: 5,
    });
  });

  it('slugs headings as GitHub does (code marks, punctuation, repeats)', () => {
    const dir = fixtureTree({
      'a.md': '# Learning from use: POST /v1/catalog/feedback\n## `meta.skipped`\n## Same\n## Same\n',
    });
    expect([...anchorsOf(join(dir, 'a.md'))]).toEqual([
      'learning-from-use-post-v1catalogfeedback',
      'metaskipped',
      'same',
      'same-1',
    ]);
  });

  it('finds every link of the READMEs and docs/ in place', () => {
    const files = documents(root);
    expect(files).toEqual(
      expect.arrayContaining(['README.md', 'docs/development.md', 'packages/client/README.md', 'src/search/README.md']),
    );
    const { broken, checked } = brokenLinks(root, files);
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });

  it('finds every docs/ reference of the code comments in place', () => {
    const files = code(root);
    expect(files).toEqual(expect.arrayContaining(['src/app.ts', 'packages/core/src/index.ts']));
    const { broken, checked } = brokenCodeReferences(root, files);
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });
});
