import type { FeedbackResponse, SearchResponse, ToolInfo } from '@catalog-search/core';
import { testToken } from '../helpers/tokens.js';

/** A router's three calls over real HTTP: search, report, forget. */
export function routerOf(url: string, projectId: string, path = '/v1/catalog') {
  const headers = { authorization: `Bearer ${testToken({ projectId })}`, 'content-type': 'application/json' };
  return {
    async search(query: string[], tools: ToolInfo[], maxResults = 10): Promise<SearchResponse> {
      const response = await fetch(`${url}${path}/search`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query, tools, maxResults }),
      });
      if (response.status !== 200) throw new Error(`search: ${response.status} ${await response.text()}`);
      return (await response.json()) as SearchResponse;
    },
    async report(events: unknown[]): Promise<{ status: number; body: FeedbackResponse }> {
      const response = await fetch(`${url}${path}/feedback`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ events }),
      });
      return { status: response.status, body: (await response.json()) as FeedbackResponse };
    },
    async forget(): Promise<number> {
      const response = await fetch(`${url}${path}/feedback`, {
        method: 'DELETE',
        headers: { authorization: headers.authorization },
      });
      return response.status;
    },
  };
}

/** A request that shares no word with the sample tools' text: only past use can find its tool. */
export const UNMATCHED_REQUESTS = [
  ['jot the retro takeaways for the squad'],
  ['jot our retro takeaways somewhere for the squad'],
  ['jot retro takeaways for everyone in the squad'],
  ['jot down squad retro takeaways'],
];
export const TAUGHT_TOOL = 'notion:create_page';
