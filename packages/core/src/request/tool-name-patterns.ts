import globToRegExp from 'glob-to-regexp';
import { RE2JS } from 're2js';
import type { RequestProblem } from './tool-list.js';

/**
 * `filter.tools` rules (seed 003): globs (`github_*`, `*delete*`), `/regex/flags` and `!` negation.
 * Every rule runs on RE2JS, a linear-time engine: no pattern can stall the service with
 * catastrophic backtracking, since RE2 has no backtracking (and refuses look-around and
 * backreferences, which need it). Globs become RE2 patterns through glob-to-regexp, whose output
 * uses only `.*`, `.`, classes and alternation. picomatch was tried first: it compiles to
 * backtracking JavaScript RegExps (`*a*a*a*a*b` against a long name is polynomial of high degree)
 * and to look-aheads RE2 refuses, so it cannot be run safely.
 *
 * Linear is not cheap, though: matching costs up to (program size × name length), and compiling
 * grows with program size. A 213-character rule (a 200-character group repeated 999 times, which RE2
 * allows) compiles to 200,801 instructions, and 64 such rules did not fit RE2's limit together (a 500);
 * 16 rules `[a-z]{1,100}b` (3,239 instructions) took minutes for 5,000 tools of 512-character names
 * (figures: docs/performance.md#re2-rules-compile-and-match-cost). So the rules of a request may compile to MAX_RULE_INSTRUCTIONS in all
 * (64 server globs such as `github:*` take about 700), and runToolNameRules bounds the cost of one
 * tool (instructions × characters) before matching and the time spent on the list while matching.
 */
export interface ToolNameMatcher {
  /** Whether a tool with this name and key passes the rules. */
  matches(toolName: string, toolKey: string): boolean;
  /** RE2 instructions of all rules: matching a name costs at most this many steps per character. */
  readonly instructions: number;
}

type PatternCompilation = { ok: true; matcher: ToolNameMatcher } | { ok: false; problems: RequestProblem[] };

/** RE2 instructions all rules of a request may compile to. */
const MAX_RULE_INSTRUCTIONS = 10_000;

const REGEX_RULE = /^\/(.+)\/([a-z]*)$/s;
const FLAGS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL };

export function compileToolNamePatterns(rules: readonly string[], field = '/filter/tools'): PatternCompilation {
  const include: string[] = [];
  const exclude: string[] = [];
  const problems: RequestProblem[] = [];
  let instructions = 0;
  for (const [index, rule] of rules.entries()) {
    const negated = rule.startsWith('!');
    const body = negated ? rule.slice(1) : rule;
    const compiled = toRe2Source(body);
    if ('problem' in compiled) {
      problems.push({ field: `${field}/${index}`, message: compiled.problem });
      continue;
    }
    instructions += compiled.instructions;
    if (instructions > MAX_RULE_INSTRUCTIONS) {
      // Stop compiling here: each further rule could cost as much again.
      const message = `makes the rules too large to run (over ${MAX_RULE_INSTRUCTIONS} RE2 instructions in all): use fewer or simpler rules (a counted repetition such as {1,999} is costly)`;
      problems.push({ field: `${field}/${index}`, message });
      break;
    }
    (negated ? exclude : include).push(compiled.source);
  }
  if (problems.length > 0) return { ok: false, problems };
  // One alternation per side: each name is scanned once per side, however many rules there are.
  const included = include.length > 0 ? RE2JS.compile(include.map((s) => `(?:${s})`).join('|')) : undefined;
  const excluded = exclude.length > 0 ? RE2JS.compile(exclude.map((s) => `(?:${s})`).join('|')) : undefined;
  const test = (re: RE2JS, name: string, key: string) => re.matcher(name).find() || re.matcher(key).find();
  return {
    ok: true,
    matcher: {
      instructions,
      matches: (toolName, toolKey) =>
        !(excluded && test(excluded, toolName, toolKey)) && (!included || test(included, toolName, toolKey)),
    },
  };
}

/** An RE2 source for one rule (flags inlined as `(?i)`) and its program size, or why the rule is refused. */
function toRe2Source(rule: string): { source: string; instructions: number } | { problem: string } {
  if (rule === '') return { problem: 'must not be empty' };
  const regex = REGEX_RULE.exec(rule);
  let source = '';
  let flags = '';
  let instructions: number;
  if (regex) {
    source = regex[1]!;
    flags = regex[2]!;
    const unknown = [...flags].find((flag) => !(flag in FLAGS));
    if (unknown !== undefined) return { problem: `regex flag "${unknown}" is not supported (use i, m or s)` };
  }
  try {
    // Globs match the whole name (or the whole key); `{a,b}`, `[abc]` and `[!abc]` are supported.
    // glob-to-regexp builds a JavaScript RegExp, which throws for an unclosed `{` (`a{b`).
    if (!regex) source = negatedClasses(globToRegExp(rule, { extended: true }).source);
    const flagBits = [...flags].reduce((bits, flag) => bits | FLAGS[flag]!, 0);
    instructions = RE2JS.compile(source, flagBits).programSize();
  } catch (error) {
    return { problem: `is not a valid ${regex ? 'RE2 regular expression' : 'glob'}: ${(error as Error).message}` };
  }
  return { source: flags === '' ? source : `(?${flags})${source}`, instructions };
}

/**
 * glob-to-regexp copies a class as it is but escapes `!` and `^` everywhere, so `t[!a]b` became the
 * class of `!` and `a` (matching `tab` and `t!b`, not `txb`). A class opening with an escaped `!` or
 * `^` is the negated class that globs mean (as in picomatch and minimatch). glob-to-regexp escapes
 * no `[` of its own, so every unescaped `[` in its output opens a class of the glob.
 */
function negatedClasses(source: string): string {
  return source.replace(/(?<!\\)((?:\\\\)*)\[\\[!^]/g, '$1[^');
}
