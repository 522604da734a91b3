import { describe, expect, it } from 'vitest';
import {
  compileToolFilter,
  compileToolNamePatterns,
  FILTER_TIME_BUDGET_MS,
  MAX_STEPS_PER_TOOL,
  prepareSearch,
  runToolNameRules,
  type ToolInfo,
} from '../src/index.js';
import { CATALOG } from '../../../test/fixtures/catalog.js';

function kept(filter: Parameters<typeof compileToolFilter>[0], tools: ToolInfo[] = CATALOG): string[] {
  const compiled = compileToolFilter(filter);
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  return (compiled.keep ? tools.filter(compiled.keep) : tools).map((tool) => tool.toolKey);
}

const ANNOTATED: ToolInfo[] = [
  { toolKey: 'fs:read', toolName: 'read', serverName: 'FS', annotations: { readOnlyHint: true } },
  {
    toolKey: 'fs:write',
    toolName: 'write',
    serverName: 'FS',
    annotations: { readOnlyHint: false, destructiveHint: false },
  },
  { toolKey: 'fs:delete', toolName: 'delete', serverName: 'FS', annotations: { destructiveHint: true } },
  { toolKey: 'fs:unknown', toolName: 'unknown', serverName: 'FS' },
];

describe('filter', () => {
  it('servers and excludeServers match the server id (toolKey prefix) or serverName', () => {
    expect(kept({ servers: ['github', 'Slack'] })).toEqual([
      'github:create_issue',
      'github:search_issues',
      'github:create_pull_request',
      'github:getFileContents',
      'slack:post_message',
      'slack:list_channels',
    ]);
    expect(kept({ excludeServers: ['Google Maps', 'github', 'slack', 'filesystem', 'web'] })).toEqual([
      'weather:get_forecast',
      'bing-cn:bing_search',
      'images:generate_image',
    ]);
  });

  it('tools: globs, /regex/flags and ! negation over name and key (seed 003)', () => {
    expect(kept({ tools: ['github_*'] })).toEqual([]);
    expect(kept({ tools: ['github:*'] })).toHaveLength(4);
    // Globs are case-sensitive (getFileContents has no "file"); a /regex/i is not.
    expect(kept({ tools: ['*file*'] })).toEqual([
      'filesystem:read_file',
      'filesystem:write_file',
      'filesystem:search_files',
    ]);
    expect(kept({ tools: ['*file*', '!write_*'] })).toEqual(['filesystem:read_file', 'filesystem:search_files']);
    expect(kept({ tools: ['!*search*'] })).not.toContain('web:web_search');
    expect(kept({ tools: ['/^(create|post)_/'] })).toEqual([
      'github:create_issue',
      'github:create_pull_request',
      'slack:post_message',
    ]);
    expect(kept({ tools: ['/GETFILE/i'] })).toEqual(['github:getFileContents']);
    expect(kept({ tools: ['get_?orecast', '{geocode,fetch_url}'] })).toEqual([
      'web:fetch_url',
      'maps:geocode',
      'weather:get_forecast',
    ]);
  });

  it('refuses a rule RE2 cannot run, naming it', () => {
    expect(compileToolNamePatterns(['ok_*', '/(a)\\1/', '/(?=x)/', '/a/g'])).toEqual({
      ok: false,
      problems: [
        { field: '/filter/tools/1', message: expect.stringContaining('not a valid RE2 regular expression') },
        { field: '/filter/tools/2', message: expect.stringContaining('not a valid RE2 regular expression') },
        { field: '/filter/tools/3', message: 'regex flag "g" is not supported (use i, m or s)' },
      ],
    });
  });

  it('refuses a glob with an unclosed brace, naming it (glob-to-regexp threw: a 500)', () => {
    expect(compileToolNamePatterns(['ok_*', 'a{b', 'x"AT${'])).toEqual({
      ok: false,
      problems: [
        { field: '/filter/tools/1', message: expect.stringContaining('is not a valid glob') },
        { field: '/filter/tools/2', message: expect.stringContaining('is not a valid glob') },
      ],
    });
  });

  it('refuses rules that compile too large together, at the rule that crosses the bound, without compiling the rest', () => {
    const started = performance.now();
    // Each compiles to 200,801 instructions in ~150 ms; 64 of them together were too large for RE2 (a 500).
    const huge = Array.from({ length: 64 }, (_, i) => `/(?:[^a]${'x'.repeat(200)}){999}${i}/`);
    expect(compileToolNamePatterns(huge)).toEqual({
      ok: false,
      problems: [{ field: '/filter/tools/0', message: expect.stringContaining('too large to run') }],
    });
    // ~2,000 instructions each: the fifth passes 10,000.
    const repeated = Array.from({ length: 64 }, (_, i) => `/[a-z]{1,999}b${i}/`);
    expect(compileToolNamePatterns(repeated)).toEqual({
      ok: false,
      problems: [{ field: '/filter/tools/4', message: expect.stringContaining('too large to run') }],
    });
    // A generous bound, for hang detection only: compiling every huge rule took about 10 s.
    expect(performance.now() - started).toBeLessThan(5_000);
    // Real rule lists are far below the bound.
    expect(compileToolNamePatterns(Array.from({ length: 64 }, (_, i) => `server${i}:*`)).ok).toBe(true);
  });

  it('answers a catastrophic-backtracking pattern promptly (ReDoS)', () => {
    const long = 'a'.repeat(500);
    // 200 tools: enough to show linear time (a backtracking engine would not finish one).
    const tools: ToolInfo[] = Array.from({ length: 200 }, (_, i) => ({
      toolKey: `s${i}:${long}`,
      toolName: `${long}!`,
      serverName: 'S',
    }));
    const started = performance.now();
    // Both would take far longer than the age of the universe with a backtracking engine.
    expect(kept({ tools: ['/^(a+)+$/', '*a*a*a*a*a*a*a*a*a*a*b'] }, tools)).toEqual([]);
    // A generous bound, for hang detection only: this takes well under a second.
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  it('refuses rules too costly for the longest tool before running them (instructions × characters)', () => {
    // The 1.3 KB attack of issue #22: 9,010 instructions (under the size bound) on one 512-character
    // name and key, 9.2 M steps, 0.6–0.9 s for this one tool.
    const name = 'a'.repeat(512);
    const rules = ['[^a]', 'b', 'c', 'd', 'e'].map((tail) => `/(?:(?:a{1,30}){1,30})${tail}/`);
    const tools: ToolInfo[] = [{ toolKey: name, toolName: name, serverName: 'S' }];
    expect(runToolNameRules(rules, tools, 60_000)).toEqual({
      ok: false,
      problems: [
        {
          field: '/filter/tools',
          message: expect.stringContaining(
            `9010 RE2 instructions × 1024 characters of name and key; at most ${MAX_STEPS_PER_TOOL} per tool`,
          ),
        },
      ],
    });
    // The same rules on a short name run.
    expect(runToolNameRules(rules, [{ toolKey: 's:ab', toolName: 'ab' }], 60_000)).toEqual({
      ok: true,
      passes: Uint8Array.from([1]),
    });
    // 64 server globs on long names are far from the bound.
    const globs = Array.from({ length: 64 }, (_, i) => `server${i}:*`);
    expect(
      runToolNameRules(globs, [{ toolKey: `server1:${'x'.repeat(200)}`, toolName: 'x'.repeat(200) }], 60_000),
    ).toMatchObject({ ok: true });
  });

  it('refuses a filter that takes too long on the list, naming filter.tools, instead of holding the thread', () => {
    // 3,239 instructions on 256-character names: under the per-tool bound, but ~25 ms per name, ~25 s
    // for these 1,000 tools.
    const rules = Array.from({ length: 16 }, (_, i) => `/[a-z]{1,100}b${i}/`);
    const tools: ToolInfo[] = Array.from({ length: 1000 }, (_, i) => ({
      toolKey: `s:${i}`,
      toolName: `${'ab'.repeat(124)}${i}`,
      serverName: 'S',
    }));
    const started = performance.now();
    const prepared = prepareSearch({ query: ['x'], filter: { tools: rules } }, { tools, skipped: [], skippedCount: 0 });
    expect(prepared).toEqual({
      ok: false,
      problems: [{ field: '/filter/tools', message: expect.stringContaining(`took over ${FILTER_TIME_BUDGET_MS} ms`) }],
    });
    // A generous bound, for hang detection only: the budget is 500 ms, checked after each tool.
    expect(performance.now() - started).toBeLessThan(10_000);
    // The same list with an everyday filter is prepared.
    expect(
      prepareSearch({ query: ['x'], filter: { tools: ['s:1*'] } }, { tools, skipped: [], skippedCount: 0 }),
    ).toMatchObject({ ok: true });
  });

  it('never refuses a small run by time, however slow the machine: the budget stops costly runs only', () => {
    const tools: ToolInfo[] = [
      { toolKey: 'slack:post', toolName: 'post', serverName: 'slack' },
      { toolKey: 'slack:read_channel', toolName: 'read_channel', serverName: 'slack' },
    ];
    // A budget of 0 ms is past before the first tool: a small run still answers.
    expect(runToolNameRules(['!read_channel', 'slack:*'], tools, 0)).toEqual({
      ok: true,
      passes: Uint8Array.from([1, 0]),
    });
    // A run past STEPS_BEFORE_TIME_CHECK is held to it.
    const many: ToolInfo[] = Array.from({ length: 2000 }, (_, i) => ({
      toolKey: `s:${'x'.repeat(100)}${i}`,
      toolName: `${'x'.repeat(100)}${i}`,
      serverName: 'S',
    }));
    const rules = Array.from({ length: 16 }, (_, i) => `/x{1,20}y${i}/`);
    expect(runToolNameRules(rules, many, 0)).toMatchObject({ ok: false });
  });

  it('uses the verdicts of rules run elsewhere (the service runs them in a worker)', () => {
    const tools = CATALOG.slice(0, 3);
    const toolNameRun = { ok: true as const, passes: Uint8Array.from([0, 1, 0]) };
    // The rule itself would keep nothing: the verdicts given are what counts.
    const prepared = prepareSearch(
      { query: ['x'], filter: { tools: ['nothing-matches'] } },
      { tools, skipped: [], skippedCount: 0 },
      { toolNameRun },
    );
    expect(prepared.ok && prepared.search.tools).toEqual([tools[1]]);
    const refused = {
      ok: false as const,
      problems: [{ field: '/filter/tools', message: 'took over 2000 ms on this list' }],
    };
    expect(
      prepareSearch(
        { query: ['x'], filter: { tools: ['x'] } },
        { tools, skipped: [], skippedCount: 0 },
        { toolNameRun: refused },
      ),
    ).toEqual(refused);
  });

  it('globs negate a class with ! or ^, as picomatch and minimatch do (t[!a]b matched tab and t!b, not txb)', () => {
    const names = ['tab', 'txb', 't!b', 't^b'].map((name): ToolInfo => ({
      toolKey: `s:${name}`,
      toolName: name,
      serverName: 'S',
    }));
    // Any one character but `a`: `!` and `^` too, as in picomatch.
    expect(kept({ tools: ['t[!a]b'] }, names)).toEqual(['s:txb', 's:t!b', 's:t^b']);
    expect(kept({ tools: ['t[^a]b'] }, names)).toEqual(['s:txb', 's:t!b', 's:t^b']);
    expect(kept({ tools: ['t[!ax!^]b'] }, names)).toEqual([]);
    expect(kept({ tools: ['t[a!]b'] }, names)).toEqual(['s:tab', 's:t!b']);
    expect(kept({ tools: ['!t[!a]b'] }, names)).toEqual(['s:tab']);
  });

  it('tags keep tools with at least one matching tag, case-insensitively (seed 004)', () => {
    expect(kept({ tags: ['ART', 'music'] })).toEqual(['images:generate_image']);
    expect(kept({ tags: ['music'] })).toEqual([]);
  });

  it('readOnly keeps readOnlyHint: true only; excludeDestructive follows the MCP defaults for absent hints', () => {
    expect(kept({ readOnly: true }, ANNOTATED)).toEqual(['fs:read']);
    expect(kept({ excludeDestructive: true }, ANNOTATED)).toEqual(['fs:read', 'fs:write']);
  });

  it('combines filters (every one must pass) and never widens the list', () => {
    expect(kept({ servers: ['FS'], tools: ['!read'], excludeDestructive: true }, ANNOTATED)).toEqual(['fs:write']);
    expect(kept({}, ANNOTATED)).toEqual(ANNOTATED.map((tool) => tool.toolKey));
  });
});
