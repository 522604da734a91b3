import { describe, expect, it } from 'vitest';
import { tokenize, type ToolInfo } from '@catalog-search/core';
import { ListWords } from '../../src/learning/shared/shared-learning.js';

const tool = (serverName: string, toolName: string, description: string, title?: string): ToolInfo => ({
  toolKey: `${serverName}:${toolName}`,
  serverName,
  toolName,
  description,
  ...(title ? { title } : {}),
});

describe('ListWords (the words of a list that shared learning weighs untaught request words by)', () => {
  const words = new ListWords([
    tool('puppeteer', 'puppeteer_navigate', 'Navigate to a URL'),
    tool('calendar', 'list_events', 'List the events of a day', 'Agenda'),
  ]);

  // A request's words reach it as index terms (stemmed: "navigate" is "navig"), as the list's do.
  const has = (word: string) => words.has(tokenize(word)[0]!);

  it('holds the index terms of the tools’ names, titles, servers and descriptions', () => {
    for (const word of ['puppeteer', 'navigate', 'url', 'calendar', 'events', 'day', 'agenda'])
      expect(has(word), word).toBe(true);
  });

  it('does not hold words no tool has: names, values, hosts', () => {
    for (const word of ['zurich', 'baidu', 'https', 'www', 'acme', '2023']) expect(has(word), word).toBe(false);
  });

  it('keeps each distinct word once', () => {
    const twice = new ListWords([tool('shell', 'echo', 'echo echo echo'), tool('shell', 'echo', 'echo')]);
    expect(twice.size).toBe(2);
    expect(twice.has(tokenize('echo')[0]!)).toBe(true);
  });
});
