import { VARIABLES, type VariableName } from './variables.js';

/**
 * What the project's own templates and docs write where a real value goes: `REPLACE_ME-…`
 * (deploy/base/secret.template.yaml), `changeme`, an ellipsis (`rediss://...`), `<your-key>`, and a URL's
 * password written as the word `password` (`rediss://user:password@host:6380`). Such a value copied as it
 * is must stop the service: the template's secret passes the 32-byte check and would sign valid tokens.
 * No real value of any variable looks like these.
 */
const PLACEHOLDER = /replace[_-]?me|change[_-]?me|\.\.\.|…|^<[^>]*>$|:password@/i;
/** Examples the templates show that no pattern above catches (.env.example's `# e.g.` lines). */
const SHIPPED_EXAMPLES = new Set<string>([VARIABLES.AUTH_JWKS_URL.example]);

/** One problem per variable whose value is a placeholder; the value is not echoed (it may be a secret). */
export function placeholderProblems(env: Readonly<Record<string, string | undefined>>): string[] {
  return (Object.keys(VARIABLES) as VariableName[])
    .filter((name) => {
      const value = env[name]?.trim() ?? '';
      return PLACEHOLDER.test(value) || SHIPPED_EXAMPLES.has(value);
    })
    .map((name) => `${name}: is a placeholder from the project's templates or docs; set the real value`);
}
