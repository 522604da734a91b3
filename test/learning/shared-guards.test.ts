// The guards of shared learning (shared-guards.ts, learning-step.ts), exact rather than blunt: a tool is
// barred for what it does (its hint, its name, its description's leading verb), not for a word in
// passing; and "support" is what the ranker itself counts, in any field and through its mappings.
import { describe, expect, it } from 'vitest';
import { rankTools, type ToolInfo } from '@catalog-search/core';
import { applyBoosts } from '../../src/learning/learning-step.js';
import { sharedMayNotRaise, WordSupport } from '../../src/learning/shared/shared-guards.js';
import type { LearnedBoost } from '../../src/learning/boost.js';

const tool = (toolName: string, description: string, more: Partial<ToolInfo> = {}): ToolInfo => ({
  toolKey: `${more.serverName ?? 's'}:${toolName}`,
  toolName,
  serverName: 's',
  description,
  inputSchema: { type: 'object', properties: {} },
  ...more,
});
const shared = (boost: number): LearnedBoost => ({ boost, cautiousBoost: boost / 4, similarRequests: 8, shared: true });

describe('sharedMayNotRaise: what a tool does, not every word it says', () => {
  it('bars a tool marked destructive, named for a deleting verb, or whose description leads with one', () => {
    for (const barred of [
      tool('transfer_repository', 'Transfer ownership.', { annotations: { destructiveHint: true } }),
      tool('delete_file', 'A file, gone.'),
      tool('removeMember', 'Take a member out of a team.'),
      tool('token', 'Tokens.', { title: 'Revoke token' }),
      tool('repo_cleanup', 'Deletes a repository. This cannot be undone.'),
      tool('tables', 'This tool drops a table.'),
      tool('history', 'Permanently erases the chat history.'),
      tool('reset', 'Tool to wipe a device.'),
      tool('repo', '[GitHub] Delete a repository.', { serverName: 'github' }),
      tool('message', 'Allows you to delete a message.'),
      tool('cache', 'Endpoint that purges the cache.'),
    ]) {
      expect(sharedMayNotRaise(barred), barred.toolName).toBe(true);
    }
  });

  it('leaves a tool that only mentions removing in passing, a read-only hint, and "Dropbox"', () => {
    for (const free of [
      tool(
        'list_events',
        'List calendar events, removing duplicates of recurring ones, and drop none of the attendees.',
      ),
      tool('get_file', 'Get a file. Files moved to the trash are deleted after 30 days.'),
      tool('dropbox_upload', 'Upload a file to Dropbox.'),
      tool('apply_patch', 'Apply a patch that removes lines.'),
      tool('list_members', 'Lists users that were removed from the team.'),
      tool('inspect', 'Inspect a table.', { annotations: { destructiveHint: true, readOnlyHint: true } }),
    ]) {
      expect(sharedMayNotRaise(free), free.toolName).toBe(false);
    }
  });
});

describe('WordSupport: what the ranker counts', () => {
  const TOOLS = [
    tool('get_weather', 'Current conditions for a place.', {
      inputSchema: {
        type: 'object',
        properties: { latitude: { type: 'number', description: 'latitude of the place' } },
      },
    }),
    tool('nearest_airports', 'Airports near a latitude and longitude.'),
    tool('list_alerts', 'Alerts of the account.'),
    tool('send_fax', 'Send a fax.', { serverName: 'fax' }),
  ];

  it('supports a tool matched in its parameters or through a mapping, not a server neighbour at 0', () => {
    const ranked = rankTools({ query: ['weather at latitude 40'], tools: TOOLS });
    const support = new WordSupport(ranked);
    // Matched in its name and parameters, and in its description.
    expect(support.supports(0)).toBe(true);
    expect(support.supports(1)).toBe(true);
    // Listed at relevance 0 beside its server's matches ("no query term matched"): no support.
    expect(ranked.find((item) => item.index === 2)?.relevance ?? 0).toBe(0);
    expect(support.supports(2)).toBe(false);
    expect(support.supports(3)).toBe(false);
    // "show" reads as "list" (the everyday lexicon): supported, as the ranker explains it.
    const shown = rankTools({ query: ['show my alerts'], tools: TOOLS });
    expect(new WordSupport(shown).supports(2)).toBe(true);
  });

  it('a shared boost raises a supported tool first, an unsupported one only below the best supported', () => {
    const ranked = rankTools({ query: ['airports near latitude 40'], tools: TOOLS });
    const support = () => new WordSupport(ranked);
    expect(ranked[0]!.tool.toolName).toBe('nearest_airports');
    // The weather tool is supported only through a parameter's description: the boost may put it first.
    const raised = applyBoosts(ranked, TOOLS, new Map([['s:get_weather', shared(0.9)]]), 10, support());
    expect(raised.ranked[0]!.tool.toolName).toBe('get_weather');
    // The fax tool has no support: however large its boost, it stays below the best supported tool.
    const held = applyBoosts(ranked, TOOLS, new Map([['fax:send_fax', shared(2)]]), 10, support()).ranked;
    expect(held[0]!.tool.toolName).toBe('nearest_airports');
    const fax = held.findIndex((item) => item.tool.toolName === 'send_fax');
    expect(fax).toBeGreaterThan(0);
    expect(held[fax]!.explanation).toMatch(/kept below the best tool the request's words match/);
  });

  it('when no tool has support, a shared boost applies as it is', () => {
    const ranked = rankTools({ query: ['zzzz qqqq'], tools: TOOLS });
    expect(ranked).toHaveLength(0);
    const { ranked: raised } = applyBoosts(
      ranked,
      TOOLS,
      new Map([['fax:send_fax', shared(0.5)]]),
      10,
      new WordSupport(ranked),
    );
    expect(raised[0]!.tool.toolName).toBe('send_fax');
  });
});
