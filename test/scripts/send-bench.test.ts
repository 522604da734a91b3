import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchDatasets, CHUNK_TOOLS, sendDataset, startLocalService } from '../../scripts/send-bench.js';

// A fast sample of `npm run bench:requests`: every public catalog in ../shared/bench, in chunks of
// at most 1,000 tools in both request forms, with two of each dataset's queries verbatim, through
// the real HTTP API. No request may be rejected; unusable tools are skipped and named. (Skipped
// when the data is not beside the repo.)
const datasets = benchDatasets();
let service: Awaited<ReturnType<typeof startLocalService>>;

beforeAll(async () => {
  if (datasets.length > 0) service = await startLocalService();
});
afterAll(async () => service?.close());

describe.skipIf(datasets.length === 0)('real catalogs through the HTTP API', () => {
  it.each(datasets)(
    '%s: 0 rejections',
    async (dataset) => {
      const report = await sendDataset(dataset, { ...service, maxQueries: 2 });
      expect(report.rejected).toEqual([]);
      expect(report.rejections).toBe(0);
      expect(report.requests).toBeGreaterThanOrEqual(report.chunks * 2);
      expect(report.tools).toBeLessThanOrEqual(report.chunks * CHUNK_TOOLS);
      // toolret_toolink has one tool with an empty toolName: skipped, named, and nothing else fails.
      if (dataset === 'toolret_toolink') {
        expect(report.skippedTools).toBe(1);
        expect(report.skipReasons).toContain('/tools/N/toolName: must be a non-empty string');
      }
    },
    60_000,
  );
});
