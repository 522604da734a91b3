import { describe, expect, it } from 'vitest';
import { rankOkapiBm25 } from '../../eval/okapi-bm25.js';

const tools = [
  {
    toolKey: 'github:create_issue',
    toolName: 'create_issue',
    serverName: 'GitHub',
    description: 'Create a new issue in a repository',
  },
  {
    toolKey: 'slack:post_message',
    toolName: 'post_message',
    serverName: 'Slack',
    description: 'Post a message to a channel',
  },
];

describe('plain Okapi BM25 baseline', () => {
  it('ranks the tool sharing the query words first and drops tools with no match', () => {
    const ranked = rankOkapiBm25({ query: ['post a message to the team channel'], tools });
    expect(ranked[0]?.tool.toolKey).toBe('slack:post_message');
    expect(rankOkapiBm25({ query: ['weather forecast'], tools })).toEqual([]);
  });

  it('reports score / maxScore, so the top hit is always 1.0 (the flaw our ranker fixes)', () => {
    const ranked = rankOkapiBm25({ query: ['repository'], tools });
    expect(ranked[0]?.relevance).toBe(1);
  });
});
