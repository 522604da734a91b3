import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const redocly = fileURLToPath(new URL('../../node_modules/.bin/redocly', import.meta.url));

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: 'error' | 'warn'; message: string; location: { pointer: string }[] }[];
}

describe('openapi.yaml lint (Redocly CLI, recommended ruleset)', () => {
  it('has no errors', async () => {
    // redocly exits non-zero when it finds errors; the JSON report on stdout says which.
    const result = await promisify(execFile)(redocly, ['lint', 'openapi.yaml', '--format=json'], {
      cwd: root,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout?: string; stderr?: string }) => ({
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }));
    const report = JSON.parse(result.stdout) as LintReport;
    const errors = report.problems
      .filter((problem) => problem.severity === 'error')
      .map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 60_000);
});
