import { stringify } from 'yaml';

/**
 * The one YAML form of the document: openapi.yaml, GET /openapi.yaml and the drift test all use it.
 * No anchors/aliases (many generators do not follow them), no line folding (stable diffs).
 */
export function toYaml(document: unknown): string {
  return stringify(document, { aliasDuplicateObjects: false, lineWidth: 0 });
}
