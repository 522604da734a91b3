// scripts/build-redis-standin.sh (and build-node-standin.sh, through the same scripts/standin-image.sh) reuse
// an image with their tag only when it carries their recipe's label. Run with a recording `docker` stand-in
// on PATH, so no engine is needed: it answers `image inspect` with the label it is told to and logs the rest.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../scripts/build-redis-standin.sh', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'standin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const log = join(dir, 'docker.log');
writeFileSync(
  join(dir, 'docker'),
  `#!/bin/sh
echo "$*" >> "${log}"
case "$1 $2" in
  "image inspect") [ -n "$FAKE_IMAGE_LABEL" ] || exit 1; [ "$FAKE_IMAGE_LABEL" = none ] && echo "" || echo "$FAKE_IMAGE_LABEL" ;;
  import*) cat >/dev/null ;;
esac
exit 0
`,
);
chmodSync(join(dir, 'docker'), 0o755);

function build(label: string | undefined): { output: string; calls: string[] } {
  writeFileSync(log, '');
  const output = execFileSync('bash', [script, 'test/redis:standin'], {
    env: { PATH: `${dir}:${process.env.PATH ?? ''}`, ...(label === undefined ? {} : { FAKE_IMAGE_LABEL: label }) },
    encoding: 'utf8',
  });
  return { output, calls: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

const imports = (calls: string[]) => calls.filter((call) => call.startsWith('import'));

describe.skipIf(!/^\//.test(execFileSync('sh', ['-c', 'command -v redis-server || true'], { encoding: 'utf8' })))(
  'scripts/build-redis-standin.sh',
  () => {
    it('builds with a recipe label, reuses only an image with that label, rebuilds one that merely has the tag', () => {
      const fresh = build(undefined);
      expect(imports(fresh.calls)).toHaveLength(1);
      const recipe = /LABEL catalog-search\.standin\.recipe=(\w+)/.exec(imports(fresh.calls)[0]!)?.[1];
      expect(recipe).toMatch(/^[0-9a-f]{32}$/);

      const same = build(recipe);
      expect(imports(same.calls)).toHaveLength(0);
      expect(same.output).toContain('already present');

      // Another image under the same tag: one without the label, and one from another recipe.
      for (const other of ['none', '0'.repeat(32)]) {
        const rebuilt = build(other);
        expect(rebuilt.output).toMatch(/not built from this recipe.*rebuilding/);
        expect(imports(rebuilt.calls)).toHaveLength(1);
      }
    });
  },
);
