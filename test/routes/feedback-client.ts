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

/**
 * Waits until the service at `url` stores reports (its Redis connection is up: until then a report is
 * answered 503, as it should be), reporting for a project of its own; a bound that only a hang reaches.
 */
export async function untilReportsStored(url: string, timeoutMs = 30_000): Promise<void> {
  const probe = routerOf(url, 'connection-probe');
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    const { status } = await probe.report([{ query: ['probe'], toolKey: 'probe:tool', outcome: 'selected' }]);
    if (status === 202) return;
    if (Date.now() > giveUpAt) throw new Error(`${url} still answers reports with ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
