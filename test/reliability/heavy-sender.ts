// The heavy tenant of the fairness scenario, as its own process: sends maximum-size searches (16
// sub-queries over 5,000 tools, 4.5 MB) every `intervalMs` for `durationMs`, then prints the results
// as one JSON line. Its own process, so that building and sending megabytes does not delay the
// measuring process's small searches (which would be measured as the service's delay).
// Usage: node --import tsx heavy-sender.ts URL TOKEN INTERVAL_MS DURATION_MS [CONTENT_TYPE]
import { paced, timedSearch, uniqueTools } from './load.js';

export const heavyBody = () =>
  JSON.stringify({
    query: Array.from(
      { length: 16 },
      (_, at) => `find the ${['invoice', 'ticket', 'contact', 'report'][at % 4]} record number ${at} and export it`,
    ),
    tools: uniqueTools(5_000, 'heavy', 700),
    maxResults: 30,
  });

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const [url, token, intervalMs, durationMs, contentType] = process.argv.slice(2) as [
    string,
    string,
    string,
    string,
    string?,
  ];
  const body = heavyBody();
  const results = await paced(Number(intervalMs), Number(durationMs), () =>
    timedSearch(url, token, body, 30_000, contentType),
  );
  process.stdout.write(`${JSON.stringify(results)}\n`);
}
