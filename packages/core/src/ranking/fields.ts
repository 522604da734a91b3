/**
 * The fields BM25F scores, with their weight (how much a match there counts), length normalisation `b`
 * and calibration quality (how strongly a match there says "this tool does that"). A word in the tool
 * name is the strongest evidence; a word somewhere in a long description or in a parameter's help
 * text is weaker; the server name says which product, not which action.
 */
export const FIELDS = ['name', 'title', 'server', 'description', 'params', 'paramText', 'tags'] as const;
type Field = (typeof FIELDS)[number];
export const FIELD_COUNT = FIELDS.length;

interface FieldParams {
  weight: number;
  b: number;
  quality: number;
}

export const FIELD_PARAMS: Readonly<Record<Field, FieldParams>> = {
  name: { weight: 3.0, b: 0.5, quality: 1.0 },
  title: { weight: 2.0, b: 0.5, quality: 0.95 },
  server: { weight: 1.0, b: 0.3, quality: 0.6 },
  description: { weight: 1.0, b: 0.75, quality: 0.75 },
  params: { weight: 0.8, b: 0.5, quality: 0.6 },
  paramText: { weight: 0.4, b: 0.75, quality: 0.45 },
  tags: { weight: 1.5, b: 0.3, quality: 0.85 },
};
